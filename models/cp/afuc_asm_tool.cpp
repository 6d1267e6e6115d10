// SPDX-License-Identifier: Apache-2.0
// Stand-alone host assembler used by the build (firmware/cp): same as `gpuvp afuc-asm`.
#include "afuc_asm.h"

int main(int argc, char** argv) { return gpuvp::cp::afuc_asm_main(argc, argv); }
