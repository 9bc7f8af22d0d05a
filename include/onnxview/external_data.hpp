// onnxview/external_data.hpp - finding the bytes of tensors stored outside
// the model file (TensorProto.data_location == EXTERNAL).
//
// The io layer does not know the model layer: a tensor's `external_data`
// entries arrive as plain key/value string_views, with the payload size the
// caller expects (dims x element size). onnxview/external_source.hpp joins
// the two layers (and points errors at the tensor).
//
//   onnxview::options opts{};
//   opts.model_path = "models/net.onnx";          // files resolve in models/
//   auto r = onnxview::external_data_resolver::create(opts);
//   onnxview::external_entry kv[] = {{"location", "net.data"}, {"offset", "0"},
//                                    {"length", "4096"}};
//   auto span = r->resolve(kv, 3, 4096);
//   char why[512];
//   if (!span) puts(onnxview::describe_external_error(span.err(), "conv1.weight", "net.data",
//                                                     why, sizeof why));
//   else use(span->data, span->size);             // valid while *r lives
//
// Resolution. `location` is a path relative to the base directory: the
// caller's `external_base_dir`, else the directory of `model_path`, else the
// current directory. With `external_files` set the resolver opens nothing itself: after
// the lexical checks below it passes "<base>/<location>" (or the bare
// location without a base) to the callbacks, which then own the file-system
// checks (symlinks, hard links, file types).
//
// Checks, each with its own error code; errc_group() gives the broad kind
// in the first column, the finer codes are listed after it:
//   external_bad_entry     external_missing_location, external_empty_location,
//                          external_location_too_long (over 4095 bytes),
//                          external_duplicate_key, external_in_memory_location
//                          ('#...' without callbacks), external_offset_not_decimal
//                          and external_length_not_decimal (digits only: no
//                          sign, space or hex; onnxview/decimal.hpp),
//                          external_checksum_malformed
//   external_path_unsafe   external_nul_in_location, external_absolute_path,
//                          external_drive_path (`C:`), external_unc_path
//                          (`\\server\share`), external_backslash,
//                          external_parent_component (`..`),
//                          external_symlink_escape (realpath of the result
//                          must stay under the realpath of the base; symlinks
//                          inside it are fine)
//   is_directory / not_regular_file
//                          location names a directory / a device, FIFO or
//                          socket (checked with stat before open; the open
//                          is O_NONBLOCK|O_NOFOLLOW so a swapped-in FIFO
//                          cannot block and a swapped-in symlink fails)
//   external_hard_link     the file has more than one hard link (option)
//   external_out_of_bounds external_number_too_large (beyond 2^64-1),
//                          external_range_overflow (offset+length),
//                          external_offset_past_end, external_range_past_end
//   payload_size_mismatch  external_length_mismatch (length differs from the
//                          expected size), external_rest_of_file_mismatch
//                          (no length, and the rest of the file differs)
//   external_limit         external_too_many_files (max_external_files),
//                          external_too_many_bytes (max_external_bytes)
//   checksum_mismatch      SHA-1 of the whole file differs (option)
//   io_error               io_resolve_failed, io_stat_failed, io_open_failed,
//                          io_map_failed, io_read_failed, callback_failed:
//                          the system (or a callback) refused, its code in
//                          error::sys_errno
// The resolver keeps no error state: what the caller knows (the tensor's name
// and location) and the error make the message, see describe_external_error.
// Keys other than location/offset/length/checksum (e.g. `basepath`, which
// the Python library adds in memory) are ignored and counted in
// external_span::ignored_keys. Remaining race (POSIX): a directory of the
// path may be swapped for a symlink between realpath and open; the final
// component can not (O_NOFOLLOW).
//
// Files are opened lazily, on the first resolve() that names them, and each
// file is opened once and shared by every tensor in it. Files smaller than
// `external_copy_below` (default 64 KiB) are read into a private heap copy; larger
// ones are mapped. A mapped file that is truncated by another process while
// in use raises SIGBUS when a page past its new end is touched - the copy
// avoids this for the many small files some exporters write; for large files
// the caller must not truncate them while the resolver lives.
//
// Allocation, all from options::memory (malloc and free by default): the
// resolver's table of open files (grown by doubling, at most
// max_external_files entries), one small record per file holding the
// normalized location, the base directory, a path while a file is opened,
// and whatever a read() copy needs. Nothing else; no exceptions. Lifetime: every external_span is valid while the resolver
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

// A line for people about an error that resolve() returned for the tensor
// `tensor` whose `location` entry is `location`, e.g.
//   tensor 'w': location '../x.bin': a '..' component leaves the base directory
// with the system's text after an io error ("... cannot resolve the path (No
// such file or directory)"); names are cut at 200 bytes. Writes at most
// out_size bytes including the NUL and returns out ("" when out_size is 0).
const char* describe_external_error(error e, std::string_view tensor, std::string_view location,
                                    char* out, std::size_t out_size) noexcept;

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
    // With options::keep_descriptor, the first this many files opened keep
    // their descriptor (mapped_file::read_at); later ones do not.
    static constexpr std::size_t kept_descriptor_files = 64;

    external_data_resolver() noexcept = default;
    external_data_resolver(const external_data_resolver&) = delete;
    external_data_resolver& operator=(const external_data_resolver&) = delete;
    external_data_resolver(external_data_resolver&& other) noexcept;
    external_data_resolver& operator=(external_data_resolver&& other) noexcept;
    ~external_data_resolver();

    // Canonicalizes the base directory (unless callbacks are given); keeps
    // no pointer into `opts` (the callbacks struct is copied). Of the options
    // it reads the external-data members (onnxview/options.hpp). Errors:
    // the io_error group (base missing: io_resolve_failed with sys_errno),
    // invalid_argument (base is not a directory), out_of_memory.
    static result<external_data_resolver> create(const options& opts) noexcept;

    // The payload of one tensor. `expected_size` is dims x element size, or
    // unknown_size. Errors: see the list above; the offset of each is 0. In
    // a file supplied on demand (file_callbacks::supply, a remote model's)
    // the span's bytes are not fetched: span.file->ensure(span.offset,
    // span.size) first (external_source does; a checksum fetches the file).
    result<external_span> resolve(const external_entry* entries, std::size_t count,
                                  std::uint64_t expected_size) noexcept;

    // The file opened so far whose bytes hold [data, data + size), or null
    // (e.g. for the model's own bytes). O(files opened).
    const mapped_file* file_holding(const char* data, std::size_t size) const noexcept;

    // Number of distinct files opened so far, and the sum of their sizes.
    std::size_t file_count() const noexcept { return count_; }
    std::uint64_t total_bytes() const noexcept { return total_bytes_; }

private:
    struct slot;
    result<slot*> find_or_open(std::string_view location) noexcept;
    result<mapped_file> open_file(std::string_view location) noexcept;
    void clear() noexcept;

    options options_{};  // the external-data limits, defaults resolved; no pointers
    file_callbacks callbacks_{};
    bool use_callbacks_ = false;
    char* base_ = nullptr;        // canonical base directory (malloc); as given with callbacks; or null
    slot** slots_ = nullptr;      // malloc'd table of pointers
    std::size_t count_ = 0;
    std::size_t capacity_ = 0;
    std::uint64_t total_bytes_ = 0;
};

}  // namespace onnxview

#endif  // ONNXVIEW_EXTERNAL_DATA_HPP
