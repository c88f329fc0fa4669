#pragma once
// SI units in decks. A value is either a bare number (SI) or a string "number unit" where the unit
// is the parameter's declared SI unit or a scaled spelling of it ("2 mm" for a length in m).
#include <optional>
#include <string>

namespace meniscus::units {

// Factor that converts `given` into `declared`, or nullopt if they measure different things.
std::optional<double> factor(const std::string& declared, const std::string& given);
// The spellings accepted for `declared`, for error messages: "m, mm, cm, km, um".
std::string accepted(const std::string& declared);

}  // namespace meniscus::units
