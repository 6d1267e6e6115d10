// SPDX-License-Identifier: Apache-2.0
// Locations of the shipped configs and fixtures: from the build (SM_*_DIR) or GPUVP_SOURCE_DIR.
#pragma once
#include <cstdlib>
#include <string>

inline std::string sm_source_dir() {
  const char* s = std::getenv("GPUVP_SOURCE_DIR");
  return s ? s : ".";
}
inline std::string sm_config_dir() {
#ifdef SM_CONFIG_DIR
  return SM_CONFIG_DIR;
#else
  return sm_source_dir() + "/models/sm/configs";
#endif
}
inline std::string sm_data_dir() {
#ifdef SM_DATA_DIR
  return SM_DATA_DIR;
#else
  return sm_source_dir() + "/tests/sm/data";
#endif
}
