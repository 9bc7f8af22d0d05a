// Names and messages of error codes.
#include "onnxview/error.hpp"

namespace onnxview {

namespace {
struct errc_text {
    const char* name;
    const char* message;
    errc group;  // errc::ok: the code is its own group
};

constexpr errc_text texts[] = {
    {"ok", "no error", errc::ok},
    {"truncated", "input ends inside a field", errc::ok},
    {"varint_too_long", "varint longer than 10 bytes (tag longer than 5)", errc::ok},
    {"bad_field_number", "field number 0", errc::ok},
    {"bad_wire_type", "invalid wire type", errc::ok},
    {"length_out_of_bounds", "length-delimited field extends past its enclosing message", errc::ok},
    {"depth_exceeded", "messages nested deeper than the depth limit", errc::ok},
    {"unmatched_end_group", "end-group tag without a matching start-group", errc::ok},
    {"bad_packed_length", "packed fixed-width field length is not a multiple of the element size", errc::ok},
    {"merge_too_deep", "merged occurrences of singular messages beyond what is followed (more than 8 nested levels, or a merged field numbered above 127)", errc::ok},
    {"bad_data_type", "unknown or unexpected tensor data type", errc::ok},
    {"bad_dims", "negative dimension or element count overflowing 64 bits", errc::ok},
    {"payload_size_mismatch", "tensor payload size does not match its dims and data type", errc::ok},
    {"not_found", "not found", errc::ok},
    {"buffer_too_small", "caller buffer too small", errc::ok},
    {"unaligned", "data not aligned for a zero-copy span of this type", errc::ok},
    {"not_little_endian", "zero-copy spans need a little-endian host", errc::ok},
    {"io_error", "I/O error", errc::ok},
    {"file_empty", "file is empty", errc::ok},
    {"is_directory", "path is a directory", errc::ok},
    {"file_too_large", "file larger than this platform can map", errc::ok},
    {"external_path_unsafe", "unsafe external data location", errc::ok},
    {"external_bad_entry", "malformed external data entry", errc::ok},
    {"external_out_of_bounds", "external data range outside its file", errc::ok},
    {"external_hard_link", "external data file has more than one hard link", errc::ok},
    {"external_limit", "external data exceeds the configured limits", errc::ok},
    {"checksum_mismatch", "external data checksum mismatch", errc::ok},
    {"invalid_argument", "invalid argument", errc::ok},
    {"not_regular_file", "path is not a regular file (device, FIFO or socket)", errc::ok},
    {"out_of_memory", "out of memory", errc::ok},
    {"not_decimal", "not a plain decimal number", errc::ok},
    {"number_too_large", "decimal number above 2^64-1", errc::ok},
    {"io_stat_failed", "cannot inspect the file", errc::io_error},
    {"io_open_failed", "cannot open the file", errc::io_error},
    {"io_resolve_failed", "cannot resolve the path", errc::io_error},
    {"io_map_failed", "cannot map the file", errc::io_error},
    {"io_read_failed", "cannot read the file", errc::io_error},
    {"callback_failed", "the file callbacks failed", errc::io_error},
    {"external_missing_location", "no 'location' entry", errc::external_bad_entry},
    {"external_empty_location", "empty location", errc::external_bad_entry},
    {"external_location_too_long", "location longer than 4095 bytes", errc::external_bad_entry},
    {"external_duplicate_key", "a key is given twice", errc::external_bad_entry},
    {"external_in_memory_location", "in-memory location ('#...') needs file callbacks", errc::external_bad_entry},
    {"external_offset_not_decimal", "offset is not a plain decimal number", errc::external_bad_entry},
    {"external_length_not_decimal", "length is not a plain decimal number", errc::external_bad_entry},
    {"external_checksum_malformed", "checksum is not 40 hexadecimal digits", errc::external_bad_entry},
    {"external_nul_in_location", "location contains NUL (or is not valid UTF-8)", errc::external_path_unsafe},
    {"external_absolute_path", "absolute path", errc::external_path_unsafe},
    {"external_drive_path", "drive letter or ':' in path", errc::external_path_unsafe},
    {"external_unc_path", "UNC or network path", errc::external_path_unsafe},
    {"external_backslash", "backslash in path", errc::external_path_unsafe},
    {"external_parent_component", "a '..' component leaves the base directory", errc::external_path_unsafe},
    {"external_symlink_escape", "resolves outside the base directory (symlink or junction)", errc::external_path_unsafe},
    {"external_number_too_large", "offset or length above 2^64-1", errc::external_out_of_bounds},
    {"external_range_overflow", "offset + length overflows 64 bits", errc::external_out_of_bounds},
    {"external_offset_past_end", "offset past the end of the file", errc::external_out_of_bounds},
    {"external_range_past_end", "offset + length past the end of the file", errc::external_out_of_bounds},
    {"external_length_mismatch", "length differs from the tensor's dims x element size", errc::payload_size_mismatch},
    {"external_rest_of_file_mismatch", "no length, and the rest of the file differs from dims x element size", errc::payload_size_mismatch},
    {"external_too_many_files", "more external files than max_external_files", errc::external_limit},
    {"external_too_many_bytes", "external files larger in total than max_external_bytes", errc::external_limit},
    {"message_too_large", "message over 2 GiB - 1 bytes, which libprotobuf cannot read", errc::ok},
    {"tensor_mismatch", "the tensors differ", errc::ok},
    {"io_write_failed", "cannot write the file", errc::io_error},
    {"external_not_opened", "the model was opened self-contained: its external data is not read", errc::invalid_argument},
    {"unsupported", "this build lacks the optional library this needs", errc::invalid_argument},
    {"remote_failed", "the remote read failed", errc::io_error},
    {"remote_changed", "the remote file changed while it was read", errc::io_error},
    {"remote_range_ignored", "the server sent the whole file where a byte range was asked", errc::io_error},
};
constexpr std::size_t text_count = sizeof(texts) / sizeof(texts[0]);
static_assert(text_count == static_cast<std::size_t>(errc::remote_range_ignored) + 1,
              "every errc needs a text");
}  // namespace

const char* errc_name(errc code) noexcept {
    const auto i = static_cast<std::size_t>(code);
    return i < text_count ? texts[i].name : "unknown";
}

const char* errc_message(errc code) noexcept {
    const auto i = static_cast<std::size_t>(code);
    return i < text_count ? texts[i].message : "unknown error";
}

errc errc_group(errc code) noexcept {
    const auto i = static_cast<std::size_t>(code);
    return i < text_count && texts[i].group != errc::ok ? texts[i].group : code;
}

}  // namespace onnxview
