// onnxview/field_path.hpp - which field holds a byte offset, and an error
// told in one line.
//
// For an error offset (error::offset) this names the chain of fields that
// contain the byte, e.g. "graph.node[12].attribute[0].t.dims[3]", so a tool
// can say what is wrong and where. Works on malformed input: the walk stops at
// the field whose framing is broken and names it. format_error() is the one
// way the CLI, the Python package and the C API tell an error to people.
#ifndef ONNXVIEW_FIELD_PATH_HPP
#define ONNXVIEW_FIELD_PATH_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/error.hpp"
#include "onnxview/schema.hpp"

namespace onnxview {

// Writes the path of the fields containing byte `offset` of the message
// [data, data + size) of type `root` into out (NUL-terminated), and returns
// its length. Components: field names from the schema (of release `release`,
// 0 = newest), "[i]" for the i-th element of a repeated field (elements of
// packed chunks counted individually), field numbers for unknown fields. An
// offset between the fields of a message gives that message's path; offset 0
// or an offset in the root's own framing gives "". Known message fields are
// entered; unknown ones are not.
// Errors: invalid_argument (offset > size, or out null with out_size > 0),
// buffer_too_small (out holds a NUL-terminated prefix; the error offset is the full
// length). No allocation; the walk is iterative and linear in the bytes before
// the offset at each level.
result<std::size_t> field_path_at(const void* data, std::size_t size, std::uint64_t offset,
                                  const schema::message_desc& root, char* out,
                                  std::size_t out_size, std::uint32_t release = 0) noexcept;

// Writes where byte `offset` is, for people, into out (NUL-terminated):
// "at byte 2756", then " in PATH" when data is not null, the offset lies in
// [0, size] and its field path (field_path_at() of `root`) is not empty; a
// path of more than 511 characters is cut and ends in "...". Returns the
// length of the whole text; when that is out_size or more, out holds a
// NUL-terminated prefix. No allocation.
std::size_t format_error_location(std::uint64_t offset, const void* data, std::size_t size,
                                  const schema::message_desc& root, char* out, std::size_t out_size,
                                  std::uint32_t release = 0) noexcept;

// Writes error `e` as one line for people into out, as format_error_location():
// "MESSAGE (NAME) at byte N[ in PATH][ (SYSTEM MESSAGE)]", e.g. "invalid wire
// type (bad_wire_type) at byte 0" or "truncated input (truncated) at byte
// 2756 in graph.initializer[3].doc_string"; the system message (strerror)
// when e.sys_errno is set ("(HTTP 404)" for remote_failed and
// remote_changed, whose sys_errno is a status). Returns the length of the
// whole line.
std::size_t format_error(error e, const void* data, std::size_t size, const schema::message_desc& root, char* out,
                         std::size_t out_size, std::uint32_t release = 0) noexcept;

}  // namespace onnxview

#endif  // ONNXVIEW_FIELD_PATH_HPP
