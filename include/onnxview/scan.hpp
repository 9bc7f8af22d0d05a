// onnxview/scan.hpp - one model file's inventory and security findings, as
// `onnxview scan` writes them for thousands of files: the optional library
// `onnxview_scan` (src/scan/).
//
//   onnxview::scan_record r = onnxview::scan_file("models/net.onnx", {});
//   std::puts(r.json.c_str());                      // one line of JSON Lines
//   if (r.highest >= onnxview::scan_severity::error) { /* unsafe or broken */ }
//
// A record says what the file is (diagnose(): a model, a Git LFS pointer, a
// truncated copy, another format), and for a model: versions, opsets, node
// counts by domain and operator, inputs and outputs, parameters by data
// type, external files (present, size, extents in range), the checker's
// verdict, zero-copy readiness, the `onnxview hash` digest (in builds with
// libxxhash), optionally SHA-256 digests of the file and its external files
// and the numeric findings of `check --numeric`; and security findings:
// external locations that are absolute, escape the model's folder (`..`,
// a symlink leading out), name a hard-linked or special file, are missing,
// out of range or overlapping, duplicate external_data keys, dangerous
// operators (PythonOp and its kind), custom domains, and dims or stored
// shapes that ask for more elements than a limit. docs/scan.md documents
// every field and code.
//
// A file that cannot be read gives a record with its error, never a
// failure: scan_file does not fail. Cost: the model's metadata, a mapping
// of each external file (its bytes are not read), the checker; the digest
// reads every payload once (as `onnxview hash`), and so do `numeric` and
// `digests`. Allocation: the record's strings and vectors; no exceptions
// (std::bad_alloc propagates where enabled). Not in the single header.
#ifndef ONNXVIEW_SCAN_HPP
#define ONNXVIEW_SCAN_HPP

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace onnxview {

enum class scan_severity : std::uint8_t { none = 0, info = 1, warning = 2, error = 3 };
// "info", "warning", "error" ("none" for none).
const char* scan_severity_name(scan_severity s) noexcept;

struct scan_options {
    bool numeric = false;   // add the findings of `check --numeric` (reads every weight)
    bool digests = false;   // SHA-256 of the file and of each external file (reads them)
    // A declared dim, a tensor's dims, or a stored shape fed to
    // ConstantOfShape, Expand, Reshape or Tile asking for more elements than
    // this is a huge_elements finding.
    std::uint64_t max_elements = std::uint64_t(1) << 32;
};

struct scan_finding {
    std::string code;      // "external_escape"; docs/scan.md lists them
    scan_severity severity = scan_severity::error;
    std::string message;   // for people
    std::string where;     // "graph.initializer[0] 'w'", "graph.node[3] 'op'"; "" for the file
};

struct scan_external_file {
    std::string location;  // as the model writes it
    std::uint64_t tensors = 0;
    std::uint64_t bytes = 0;   // the tensors' lengths, added
    bool exists = false;       // opened
    std::uint64_t size = 0;    // when it exists
    bool in_range = true;      // every tensor's extent inside the file
    std::string sha256;        // with scan_options::digests, when it exists
};

struct scan_record {
    std::string path;
    std::uint64_t size = 0;
    bool readable = false;     // false: `error` says why, nothing else is known
    bool is_model = false;     // the diagnosis is onnx_model
    std::string sha256;        // with scan_options::digests
    std::int64_t ir_version = 0;
    std::string producer_name, producer_version;
    std::vector<std::pair<std::string, std::int64_t>> opsets;  // domain ("" the default), version
    std::uint64_t parameters = 0;                              // elements of every stored tensor
    std::vector<scan_external_file> external_files;
    std::vector<scan_finding> findings;
    scan_severity highest = scan_severity::none;
    // The whole record as one line of JSON (no newline), docs/scan.md.
    std::string json;
};

// The record of the file at `path` (given as the record's path).
scan_record scan_file(const char* path, const scan_options& opts);

// SHA-256 of bytes (FIPS 180-4), as 64 lowercase hexadecimal digits.
std::string sha256_hex(const void* data, std::size_t size);

}  // namespace onnxview

#endif  // ONNXVIEW_SCAN_HPP
