// SPDX-License-Identifier: Apache-2.0
// Write errors of the files a run writes (--trace): a full disk or a device error shows only when
// the buffered data is flushed, so the writer records it for the command to report, naming the file.
#pragma once

namespace gpuvp {

// True when the last tracer::close() could not write or close the trace file.
bool trace_write_failed();

}  // namespace gpuvp
