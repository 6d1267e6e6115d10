// SPDX-License-Identifier: Apache-2.0
// Nothing to register: the UAT is a part of the agx component (models/agx).
void gpuvp_register_uat() {}
