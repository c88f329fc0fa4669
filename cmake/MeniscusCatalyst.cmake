# Optional ParaView Catalyst (legacy API of ParaView 5.11) adaptor. Filled in by the in-situ work;
# for now Catalyst is off.
option(MENISCUS_ENABLE_CATALYST "Build the ParaView Catalyst in-situ adaptor" OFF)
