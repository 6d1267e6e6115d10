// SPDX-License-Identifier: Apache-2.0
// The one YAML reader of every file gpuvp reads (configuration files, sweep specifications):
// a single document, no directives, no duplicate keys, aliases bounded (no cycle, at most
// 100 000 nodes and 64 levels once expanded). Each error is a config_error naming origin:line.
#pragma once
#include <string>
#include <yaml-cpp/yaml.h>

namespace gpuvp {

// `what` names the kind of file in messages ("configuration file", "sweep specification").
YAML::Node load_yaml(const std::string& text, const std::string& origin, const std::string& what);

}  // namespace gpuvp
