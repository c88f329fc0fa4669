#include <gtest/gtest.h>
#include "core/deck.hpp"
#include "core/error.hpp"
TEST(Deck, Placeholder) { SUCCEED(); }
