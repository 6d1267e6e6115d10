// SPDX-License-Identifier: Apache-2.0
// SHA-256 (FIPS 180-4), for the run metadata (config_sha256) and the sweep spec hash: a small
// self-contained implementation so that gpuvp needs no crypto library.
#pragma once
#include <string>
#include <string_view>

namespace gpuvp {
// Lower-case hexadecimal digest of the bytes of `data`.
std::string sha256_hex(std::string_view data);
}  // namespace gpuvp
