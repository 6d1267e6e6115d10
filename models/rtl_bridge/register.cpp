// SPDX-License-Identifier: Apache-2.0
// The transactors are building blocks of RTL components (copy engine, gpuvp_add_rtl_component):
// no component type of their own.
void gpuvp_register_rtl_bridge() {}
