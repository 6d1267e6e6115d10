// SPDX-License-Identifier: Apache-2.0
// `gpuvp plot DIR ...`: runs tools/gpuvp_plot.py (matplotlib) on a sweep's results.
#pragma once
#include <iosfwd>
#include <string>

namespace gpuvp::sweep {
int main_plot(int argc, char** argv);
// The default plots (one per metric) and report.html; a missing matplotlib is a warning.
void draw_default_plots(const std::string& out, std::ostream& err);
}  // namespace gpuvp::sweep
