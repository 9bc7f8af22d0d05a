// Names and messages of error codes.
#include "onnxview/error.hpp"

namespace onnxview {

namespace {
struct errc_text {
    const char* name;
    const char* message;
};

constexpr errc_text texts[] = {
    {"ok", "no error"},
    {"truncated", "input ends inside a field"},
    {"varint_too_long", "varint longer than 10 bytes (tag longer than 5)"},
    {"bad_field_number", "field number 0"},
    {"bad_wire_type", "invalid wire type"},
    {"length_out_of_bounds", "length-delimited field extends past its enclosing message"},
    {"depth_exceeded", "messages nested deeper than the depth limit"},
    {"unmatched_end_group", "end-group tag without a matching start-group"},
    {"bad_packed_length", "packed fixed-width field length is not a multiple of the element size"},
    {"merge_too_deep", "too many nested levels of merged singular message occurrences"},
    {"bad_data_type", "unknown or unexpected tensor data type"},
    {"bad_dims", "negative dimension or element count overflowing 64 bits"},
    {"payload_size_mismatch", "tensor payload size does not match its dims and data type"},
    {"not_found", "not found"},
    {"buffer_too_small", "caller buffer too small"},
    {"unaligned", "data not aligned for a zero-copy span of this type"},
    {"not_little_endian", "zero-copy spans need a little-endian host"},
    {"io_error", "I/O error"},
    {"file_empty", "file is empty"},
    {"is_directory", "path is a directory"},
    {"file_too_large", "file larger than this platform can map"},
    {"external_path_unsafe", "unsafe external data location"},
    {"external_bad_entry", "malformed external data entry"},
    {"external_out_of_bounds", "external data range outside its file"},
    {"external_hard_link", "external data file has more than one hard link"},
    {"external_limit", "external data exceeds the configured limits"},
    {"checksum_mismatch", "external data checksum mismatch"},
    {"invalid_argument", "invalid argument"},
    {"not_regular_file", "path is not a regular file (device, FIFO or socket)"},
    {"out_of_memory", "out of memory"},
};
constexpr std::size_t text_count = sizeof(texts) / sizeof(texts[0]);
static_assert(text_count == static_cast<std::size_t>(errc::out_of_memory) + 1,
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

}  // namespace onnxview
