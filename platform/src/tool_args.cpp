// SPDX-License-Identifier: Apache-2.0
// gpuvp's one command-line parser (gpuvp/tool_args.h) on Boost.Program_options.
#include "gpuvp/tool_args.h"

#include <algorithm>
#include <sstream>
#include <boost/program_options.hpp>

namespace po = boost::program_options;

namespace gpuvp {

namespace {
// The name Program_options keys an option by: the long name, or "-s" for a short-only one.
std::string key_of(const std::string& names) {
  const auto comma = names.find(',');
  if (comma == std::string::npos) return names;
  if (comma == 0) return "-" + names.substr(1);
  return names.substr(0, comma);
}
// How a message shows the option: --long or -s.
std::string display_of(const std::string& names) {
  const std::string k = key_of(names);
  return k[0] == '-' ? k : "--" + k;
}
const char* positional_key = "gpuvp-positional-arguments";
}  // namespace

struct tool_args::state {
  po::variables_map vm;
};

tool_args::tool_args(std::string command, std::string synopsis, std::string about)
    : command_(std::move(command)), synopsis_(std::move(synopsis)), about_(std::move(about)) {}

tool_args::~tool_args() = default;

tool_args& tool_args::add(option o) {
  o.hidden = next_hidden_;
  next_hidden_ = false;
  options_.push_back(std::move(o));
  return *this;
}

tool_args& tool_args::hidden() {
  next_hidden_ = true;
  return *this;
}

tool_args& tool_args::flag(const std::string& names, bool& value, const std::string& help) {
  option o{names, "", help, option::flag};
  o.flag_value = &value;
  return add(std::move(o));
}

tool_args& tool_args::text(const std::string& names, std::string& value, const std::string& arg, const std::string& help) {
  option o{names, arg, help, option::text};
  o.text_value = &value;
  return add(std::move(o));
}

tool_args& tool_args::texts(const std::string& names, std::vector<std::string>& values, const std::string& arg, const std::string& help) {
  option o{names, arg, help, option::texts};
  o.texts_value = &values;
  return add(std::move(o));
}

tool_args& tool_args::real(const std::string& names, double& value, const std::string& arg, const std::string& help, double lo, double hi) {
  option o{names, arg, help, option::converted};
  o.convert = [&value, lo, hi](const std::string& t) {
    size_t end = 0;
    double v = 0;
    try {
      v = std::stod(t, &end);
    } catch (const std::exception&) {
      end = 0;
    }
    while (end < t.size() && (t[end] == ' ' || t[end] == '\t')) ++end;
    if (end == 0 || end != t.size() || !(v == v)) throw std::invalid_argument("'" + t + "' is not a number");
    if (v < lo || v > hi) {
      std::ostringstream m;
      m << "'" << t << "' is out of range [" << lo << ", " << hi << "]";
      throw std::invalid_argument(m.str());
    }
    value = v;
  };
  return add(std::move(o));
}

tool_args& tool_args::positional(const std::string& name, std::string& value, const std::string& help, bool required) {
  option o{name, "", help, option::positional};
  o.text_value = &value;
  o.required = required;
  return add(std::move(o));
}

std::string tool_args::help_text() const {
  po::options_description visible("options");
  for (const auto& o : options_) {
    if (o.hidden) continue;
    switch (o.kind) {
      case option::flag:
        visible.add_options()(o.names.c_str(), po::bool_switch(), o.help.c_str());
        break;
      case option::texts:
        visible.add_options()(o.names.c_str(), po::value<std::string>()->value_name(o.arg), (o.help + " (repeatable)").c_str());
        break;
      case option::text:
      case option::converted:
        visible.add_options()(o.names.c_str(), po::value<std::string>()->value_name(o.arg), o.help.c_str());
        break;
      case option::positional:
        break;
    }
  }
  visible.add_options()("help,h", "show this help and exit");
  std::ostringstream os;
  os << "usage: gpuvp " << command_ << (synopsis_.empty() ? "" : " ") << synopsis_ << "\n";
  if (!about_.empty()) os << about_ << (about_.back() == '\n' ? "" : "\n");
  os << "\n";
  bool first = true;
  for (const auto& o : options_) {
    if (o.kind != option::positional || o.hidden) continue;
    if (first) os << "arguments:\n";
    first = false;
    std::string name = "  " + o.names;
    name += std::string(name.size() < 24 ? 24 - name.size() : 1, ' ');
    os << name << o.help << "\n";
  }
  os << visible;
  return os.str();
}

int tool_args::usage_error(const std::string& problem, std::ostream& err) const {
  err << "gpuvp " << command_ << ": " << problem << " (usage: gpuvp " << command_ << (synopsis_.empty() ? "" : " ") << synopsis_ << ")\n";
  return 2;
}

bool tool_args::given(const std::string& name) const {
  if (!state_) return false;
  // A long name first (`--x` is "x"), then a one-letter name as a short form (`-j` is "j").
  const auto find = [&](bool as_short) -> const option* {
    for (const auto& o : options_) {
      if (o.kind == option::positional) continue;
      const auto comma = o.names.find(',');
      if (as_short ? comma != std::string::npos && o.names.substr(comma + 1) == name : comma != 0 && o.names.substr(0, comma) == name)
        return &o;
    }
    return nullptr;
  };
  const option* o = find(false);
  if (!o && name.size() == 1) o = find(true);
  if (!o) return false;
  const auto it = state_->vm.find(key_of(o->names));
  return it != state_->vm.end() && !it->second.defaulted();
}

int tool_args::parse(int argc, char** argv, std::ostream& out, std::ostream& err) {
  po::options_description all;
  std::vector<std::string> positionals;
  bool help = false;
  for (auto& o : options_) {
    const char* names = o.names.c_str();
    switch (o.kind) {
      case option::flag:
        all.add_options()(names, po::bool_switch(o.flag_value));
        break;
      case option::text:
        all.add_options()(names, po::value<std::string>(o.text_value));
        break;
      case option::texts:
        all.add_options()(names, po::value<std::vector<std::string>>(o.texts_value)->composing());
        break;
      case option::converted:
        all.add_options()(names, po::value<std::string>(&o.raw));
        break;
      case option::positional:
        break;
    }
  }
  all.add_options()("help,h", po::bool_switch(&help));
  all.add_options()(positional_key, po::value<std::vector<std::string>>(&positionals)->composing());
  po::positional_options_description pos;
  pos.add(positional_key, -1);
  state_ = std::make_unique<state>();
  // Exact spelling only: no abbreviated long options.
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  try {
    // Program_options skips argv[0] itself.
    po::store(po::command_line_parser(std::vector<std::string>(argv + (argc > 0), argv + std::max(argc, 0)))
                  .options(all)
                  .positional(pos)
                  .style(style)
                  .run(),
              state_->vm);
    po::notify(state_->vm);
  } catch (const po::error& e) {
    // Program_options names a short-only option "--s"; show it as typed.
    std::string m = e.what();
    for (const auto& o : options_)
      if (o.names.size() == 2 && o.names[0] == ',') {
        const std::string wrong = "'--" + o.names.substr(1) + "'";
        for (size_t p; (p = m.find(wrong)) != std::string::npos;) m.replace(p, wrong.size(), "'-" + o.names.substr(1) + "'");
      }
    return usage_error(m, err);
  }
  if (help) {
    out << help_text();
    return 0;
  }
  for (auto& o : options_)
    if (o.kind == option::converted && state_->vm.count(key_of(o.names))) {
      try {
        o.convert(o.raw);
      } catch (const std::exception& e) {
        return usage_error(display_of(o.names) + " " + o.raw + ": " + e.what(), err);
      }
    }
  size_t next = 0;
  for (auto& o : options_) {
    if (o.kind != option::positional) continue;
    if (next < positionals.size()) {
      *o.text_value = positionals[next++];
    } else if (o.required) {
      return usage_error("missing " + o.names, err);
    }
  }
  if (next < positionals.size()) return usage_error("unexpected argument '" + positionals[next] + "'", err);
  return -1;
}

}  // namespace gpuvp
