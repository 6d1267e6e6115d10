// gpuvp's command-line conventions for the small tools (pb-asm, pm4-decode, afuc-asm, ...), in
// one place and without SystemC, so the model cores' tools follow them too:
//   --help / -h   the usage on standard output, exit 0;
//   an option the tool does not know: one line on standard error naming it, exit 2.
#pragma once
#include <initializer_list>
#include <iostream>
#include <string>

namespace gpuvp {

// Checks argv[1..argc) before the tool parses them. `options` lists the tool's options; those in
// `with_value` take the next argument (which is then not checked). Returns -1 to go on, else the
// exit code (0 after --help, 2 after an unknown option).
inline int tool_conventions(const char* tool, const std::string& usage, int argc, char** argv,
                            std::initializer_list<const char*> options,
                            std::initializer_list<const char*> with_value = {}) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << "usage: gpuvp " << tool << " " << usage << "\n";
      return 0;
    }
    bool takes_value = false;
    for (const char* o : with_value) takes_value |= a == o;
    if (takes_value) {
      ++i;
      continue;
    }
    if (a.size() < 2 || a[0] != '-') continue;
    bool known = false;
    for (const char* o : options) known |= a == o;
    if (!known) {
      std::cerr << "gpuvp " << tool << ": unknown option " << a << " (usage: gpuvp " << tool << " " << usage << ")\n";
      return 2;
    }
  }
  return -1;
}

}  // namespace gpuvp
