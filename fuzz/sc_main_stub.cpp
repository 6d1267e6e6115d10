// SPDX-License-Identifier: Apache-2.0
// libsystemc defines main() and needs an sc_main; libFuzzer's own main() runs the harness instead.
extern "C" int sc_main(int, char**) { return 0; }
