// SPDX-License-Identifier: Apache-2.0
// Nothing to register: the AXI2AF bridge is a part of the agx component (models/agx).
void gpuvp_register_axi2af() {}
