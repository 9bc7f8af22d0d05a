// onnxview/external_data.hpp - finding the bytes of tensors stored outside
// the model file (TensorProto.data_location == EXTERNAL).
//
// The io layer does not know the model layer: a tensor's `external_data`
// entries arrive as plain key/value string_views, with the payload size the
// caller expects (dims x element size) and the tensor's name for messages.
//
//   onnxview::external_data_options opts{};
//   opts.model_path = "models/net.onnx";          // files resolve in models/
//   auto r = onnxview::external_data_resolver::create(opts);
//   onnxview::external_entry kv[] = {{"location", "net.data"}, {"offset", "0"},
//                                    {"length", "4096"}};
//   auto span = r->resolve(kv, 3, 4096, "conv1.weight");
//   if (!span) puts(r->last_error().message);    // names the tensor and the reason
//   else use(span->data, span->size);             // valid while *r lives
//
// Resolution. `location` is a path relative to the base directory: the
// caller's `base_dir`, else the directory of `model_path`, else the current
// directory. With `callbacks` set the resolver opens nothing itself: after
// the lexical checks below it passes "<base>/<location>" (or the bare
// location without a base) to the callbacks, which then own the file-system
// checks (symlinks, hard links, file types).
//
// Checks, each with its own error code and `external_reason`:
//   external_bad_entry     missing/empty location, duplicate key, offset or
//                          length not a plain decimal number (digits only: no
//                          sign, space or hex), malformed checksum
//   external_path_unsafe   NUL in location, absolute path, drive (`C:`),
//                          UNC (`\\server\share`) or any backslash, a `..`
//                          component, a path that leaves the base directory
//                          (realpath of the result must stay under the
//                          realpath of the base; symlinks inside it are fine)
//   is_directory / not_regular_file
//                          location names a directory / a device, FIFO or
//                          socket (checked with stat before open; the open
//                          is O_NONBLOCK|O_NOFOLLOW so a swapped-in FIFO
//                          cannot block and a swapped-in symlink fails)
//   external_hard_link     the file has more than one hard link (option)
//   external_out_of_bounds number beyond 2^64-1, offset+length overflowing,
//                          offset or offset+length past the end of the file
//   payload_size_mismatch  length differs from the expected size, or (no
//                          length) the rest of the file does
//   external_limit         more than max_files files, or more than
//                          max_total_bytes bytes of files opened
//   checksum_mismatch      SHA-1 of the whole file differs (option)
//   io_error               the system refused (errno in last_error().io)
// Keys other than location/offset/length/checksum (e.g. `basepath`, which
// the Python library adds in memory) are ignored and counted in
// external_span::ignored_keys. Remaining race: a directory of the path may be
// swapped for a symlink between realpath and open; the final component can
// not (O_NOFOLLOW).
//
// Files are opened lazily, on the first resolve() that names them, and each
// file is opened once and shared by every tensor in it. Files smaller than
// `copy_below` (default 64 KiB) are read into a private heap copy; larger
// ones are mapped. A mapped file that is truncated by another process while
// in use raises SIGBUS when a page past its new end is touched - the copy
// avoids this for the many small files some exporters write; for large files
// the caller must not truncate them while the resolver lives.
//
// Allocation: the resolver allocates its table of open files (grown by
// doubling, at most max_files entries), one small record per file holding
// the normalized location, and whatever a read() copy needs. Nothing else;
// no exceptions. Lifetime: every external_span is valid while the resolver
// that returned it lives (moving the resolver keeps spans valid).
#ifndef ONNXVIEW_EXTERNAL_DATA_HPP
#define ONNXVIEW_EXTERNAL_DATA_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/error.hpp"
#include "onnxview/file.hpp"

namespace onnxview {

// One StringStringEntryProto of TensorProto.external_data.
struct external_entry {
    std::string_view key;
    std::string_view value;
};

// Expected payload size when the caller cannot know it (e.g. STRING tensors).
constexpr std::uint64_t unknown_size = ~std::uint64_t(0);

// The precise reason behind an error from resolve(); finer than errc.
enum class external_reason : std::uint8_t {
    none = 0,
    missing_location,
    empty_location,
    location_too_long,   // longer than 4095 bytes
    duplicate_key,       // location, offset, length or checksum given twice
    in_memory_location,  // '#...' (Python ModelContainer); only callbacks may serve it
    nul_in_location,
    absolute_path,
    drive_path,          // "C:..." (or any ':' in the first component)
    unc_path,            // "\\server\share" or "//server/share"
    backslash,           // any other '\'
    parent_component,    // a ".." component
    symlink_escape,      // the resolved path leaves the base directory
    directory,
    not_regular,
    hard_link,
    offset_not_decimal,
    length_not_decimal,
    number_too_large,    // offset or length above 2^64-1
    range_overflow,      // offset + length above 2^64-1
    offset_past_end,
    range_past_end,
    length_mismatch,         // length != expected size
    rest_of_file_mismatch,   // no length, and file size - offset != expected size
    too_many_files,
    too_many_bytes,
    checksum_malformed,  // not 40 hexadecimal digits
    checksum_mismatch,
    io_failure,          // see external_error_detail::io
    out_of_memory,
    file_empty,          // an empty file where bytes were asked for (callbacks)
};

// Short stable identifier, e.g. "parent_component". Never null.
const char* external_reason_name(external_reason reason) noexcept;

// What the last failed resolve() found. `message` names the tensor, the
// location and the reason, e.g.
//   tensor 'w': location '../x.bin': a '..' component leaves the base directory
struct external_error_detail {
    external_reason reason = external_reason::none;
    io_detail io{};
    char message[512] = {};
};

// All-zero is the default.
struct external_data_options {
    const char* model_path = nullptr;            // base = directory of this file
    const char* base_dir = nullptr;              // wins over model_path
    const file_callbacks* callbacks = nullptr;   // open through these instead (see above)
    std::uint32_t max_files = 0;                 // 0: 4096
    std::uint64_t max_total_bytes = 0;           // 0: no limit (sum of opened file sizes)
    std::uint64_t copy_below = 0;                // 0: 64 KiB. Smaller files are read, not mapped (1: map all)
    bool allow_hard_links = false;               // false: files with st_nlink > 1 are refused
    bool verify_checksum = false;                // true: check `checksum` (SHA-1, 40 hex digits)
    access_hint hint = access_hint::normal;      // passed to each mapped file
};

// The payload of one tensor, and where it came from.
struct external_span {
    const char* data = nullptr;
    std::size_t size = 0;
    std::string_view location;      // normalized ("a/./b" -> "a/b"), owned by the resolver
    std::uint64_t offset = 0;
    std::uint32_t offset_in_page = 0;  // offset % 4096; 0 means page-aligned (recommended, not required)
    std::uint32_t ignored_keys = 0;    // entries with keys this resolver does not use
    const mapped_file* file = nullptr; // the whole external file
    std::string_view bytes() const noexcept { return {data, size}; }
};

// Resolves external-data entries to byte spans, opening each file once.
// Move-only; not thread-safe (one resolver per thread, or a lock around it).
class external_data_resolver {
public:
    external_data_resolver() noexcept = default;
    external_data_resolver(const external_data_resolver&) = delete;
    external_data_resolver& operator=(const external_data_resolver&) = delete;
    external_data_resolver(external_data_resolver&& other) noexcept;
    external_data_resolver& operator=(external_data_resolver&& other) noexcept;
    ~external_data_resolver();

    // Canonicalizes the base directory (unless callbacks are given); keeps
    // no pointer into `options` (the callbacks struct is copied). Errors:
    // io_error (base missing, detail filled), invalid_argument (base is not
    // a directory), out_of_memory.
    static result<external_data_resolver> create(const external_data_options& options,
                                                  io_detail* detail = nullptr) noexcept;

    // The payload of one tensor. `expected_size` is dims x element size, or
    // unknown_size. On error, last_error() tells why.
    result<external_span> resolve(const external_entry* entries, std::size_t count,
                                  std::uint64_t expected_size,
                                  std::string_view tensor_name) noexcept;

    const external_error_detail& last_error() const noexcept { return detail_; }
    // Number of distinct files opened so far, and the sum of their sizes.
    std::size_t file_count() const noexcept { return count_; }
    std::uint64_t total_bytes() const noexcept { return total_bytes_; }

private:
    struct slot;
    error fail(errc code, external_reason reason, std::string_view tensor,
               std::string_view location, const char* what) noexcept;
    error open_slot(const char* location, std::size_t length, std::string_view tensor,
                    slot** out) noexcept;
    void clear() noexcept;

    external_data_options options_{};  // limits resolved; path and callback pointers cleared
    file_callbacks callbacks_{};
    bool use_callbacks_ = false;
    char* base_ = nullptr;        // canonical base directory (malloc); as given with callbacks; or null
    slot** slots_ = nullptr;      // malloc'd table of pointers
    std::size_t count_ = 0;
    std::size_t capacity_ = 0;
    std::uint64_t total_bytes_ = 0;
    external_error_detail detail_{};
};

}  // namespace onnxview

#endif  // ONNXVIEW_EXTERNAL_DATA_HPP
