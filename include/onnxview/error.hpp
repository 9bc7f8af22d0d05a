// onnxview/error.hpp - errors as values.
//
// Every fallible operation in onnxview returns an `error` (or a `result<T>`
// holding a value or an error). Nothing in the library throws; the optional
// throwing accessor `result<T>::value_or_throw()` exists only when the
// translation unit is compiled with exceptions enabled.
#ifndef ONNXVIEW_ERROR_HPP
#define ONNXVIEW_ERROR_HPP

#include <cstdint>
#include <type_traits>
#include <utility>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define ONNXVIEW_HAS_EXCEPTIONS 1
#include <stdexcept>
#include <string>
#else
#define ONNXVIEW_HAS_EXCEPTIONS 0
#endif

// Misuse of the API (value() of a result holding an error, dereferencing an
// end iterator, reading a cursor's field before next() returned one) is a
// bug in the caller, not a property of the input: ONNXVIEW_ASSERT reports it
// and aborts in builds with assertions, and costs nothing without them.
// Assertions follow NDEBUG unless ONNXVIEW_ASSERTIONS is defined to 0 or 1
// (in every translation unit of a program alike).
#ifndef ONNXVIEW_ASSERTIONS
#ifdef NDEBUG
#define ONNXVIEW_ASSERTIONS 0
#else
#define ONNXVIEW_ASSERTIONS 1
#endif
#endif
#if ONNXVIEW_ASSERTIONS
#include <cstdio>
#include <cstdlib>
namespace onnxview {
namespace detail {
[[noreturn]] inline void misuse(const char* what, const char* file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: onnxview misuse: %s\n", file, line, what);
    std::abort();
}
}  // namespace detail
}  // namespace onnxview
#define ONNXVIEW_ASSERT(condition, what) \
    ((condition) ? static_cast<void>(0) : ::onnxview::detail::misuse(what, __FILE__, __LINE__))
#else
#define ONNXVIEW_ASSERT(condition, what) static_cast<void>(0)
#endif

namespace onnxview {

// What went wrong. Values are stable; new codes are appended.
enum class errc : std::uint8_t {
    ok = 0,
    // --- protobuf wire format -------------------------------------------
    truncated,             // input ends inside a tag, varint, fixed value or length-delimited payload
    varint_too_long,       // a varint longer than 10 bytes (a tag longer than 5)
    bad_field_number,      // field number 0 or above 2^29-1
    bad_wire_type,         // wire type 6 or 7
    length_out_of_bounds,  // a length-delimited field extends past its enclosing message
    depth_exceeded,        // nesting deeper than options::max_message_depth
    unmatched_end_group,   // end-group without start, or with another field number
    bad_packed_length,     // packed fixed32/fixed64 payload not a multiple of the element size
    merge_too_deep,        // merged singular messages beyond wire::merge_path (8 levels, numbers up to 127)
    // --- ONNX model semantics (model layer) -----------------------------
    bad_data_type,         // a data type number onnxview does not know, or the wrong one for an access
    bad_dims,              // negative dimension, or element count overflowing 64 bits
    payload_size_mismatch, // tensor payload does not hold dims x element size
    not_found,             // a named thing (tensor, attribute, ...) does not exist
    buffer_too_small,      // a caller buffer is smaller than the data to copy
    unaligned,             // a zero-copy span was asked for data that is not aligned for its type
    not_little_endian,     // a zero-copy span was asked for on a big-endian host
    // --- files and external data (io layer) -----------------------------
    io_error,              // the operating system refused (see errno-like detail where available)
    file_empty,            // a model file of size 0
    is_directory,          // a path names a directory where a file was expected
    file_too_large,        // a file larger than this platform's address space
    external_path_unsafe,  // external data location absolute, with '..', a drive/UNC path, NUL, or leaving the base via a symlink
    external_bad_entry,    // external data key/value malformed (offset/length not a number, missing location)
    external_out_of_bounds,// offset+length past the end of the external file, or overflowing
    external_hard_link,    // external data file has more than one hard link (refused by default)
    external_limit,        // too many external files or bytes (limits)
    checksum_mismatch,     // external data SHA-1 checksum does not match
    invalid_argument,      // a caller passed a value outside the documented range
    not_regular_file,      // a path names a device, FIFO or socket where a regular file was expected
    out_of_memory,         // an allocation the io layer documents failed
    // --- plain decimal numbers (onnxview/decimal.hpp) --------------------
    not_decimal,           // not one or more ASCII digits (a sign, space, hex, empty)
    number_too_large,      // a decimal number above 2^64-1
    // --- finer codes: each belongs to one of the codes above (errc_group) --
    io_stat_failed,        // io_error: the system could not inspect the file (stat, GetFileAttributes)
    io_open_failed,        // io_error: ... open it (open, CreateFile)
    io_resolve_failed,     // io_error: ... resolve its path (realpath; on Windows, a
                           //   missing base directory or external file)
    io_map_failed,         // io_error: ... map it (mmap, MapViewOfFile)
    io_read_failed,        // io_error: ... read it (read, ReadFile)
    callback_failed,       // io_error: the caller's file callbacks returned an error
    external_missing_location,      // external_bad_entry: no 'location' entry
    external_empty_location,        // external_bad_entry
    external_location_too_long,     // external_bad_entry: longer than 4095 bytes
    external_duplicate_key,         // external_bad_entry: location, offset, length or checksum twice
    external_in_memory_location,    // external_bad_entry: '#...' (Python ModelContainer) without callbacks
    external_offset_not_decimal,    // external_bad_entry
    external_length_not_decimal,    // external_bad_entry
    external_checksum_malformed,    // external_bad_entry: not 40 hexadecimal digits
    external_nul_in_location,       // external_path_unsafe (also: not valid UTF-8 on Windows)
    external_absolute_path,         // external_path_unsafe
    external_drive_path,            // external_path_unsafe: "C:..." (or any ':' in the first component)
    external_unc_path,              // external_path_unsafe: "\\server\share" or "//server/share"
    external_backslash,             // external_path_unsafe: any other '\'
    external_parent_component,      // external_path_unsafe: a ".." component
    external_symlink_escape,        // external_path_unsafe: the resolved path leaves the base directory
    external_number_too_large,      // external_out_of_bounds: offset or length above 2^64-1
    external_range_overflow,        // external_out_of_bounds: offset + length above 2^64-1
    external_offset_past_end,       // external_out_of_bounds
    external_range_past_end,        // external_out_of_bounds
    external_length_mismatch,       // payload_size_mismatch: length != dims x element size
    external_rest_of_file_mismatch, // payload_size_mismatch: no length, rest of the file != expected
    external_too_many_files,        // external_limit: more than max_external_files
    external_too_many_bytes,        // external_limit: more than max_external_bytes
    // --- writing (onnxview/write.hpp) -------------------------------------
    message_too_large,     // an output message over 2 GiB - 1 bytes, which libprotobuf cannot read
    tensor_mismatch,       // two models' tensors differ (same_tensors)
    io_write_failed,       // io_error: the system refused to write (write, WriteFile)
    // --- opening -----------------------------------------------------------
    external_not_opened,   // invalid_argument: an EXTERNAL tensor's data, asked of a model
                           //   opened without external data (model_file::adopt_self_contained)
    unsupported,           // invalid_argument: this build lacks the optional library the call
                           //   needs (Graphviz for a laid-out picture)
    // --- remote files (onnxview/remote.hpp) --------------------------------
    remote_failed,         // io_error: a request failed (sys_errno: the HTTP status, or 0:
                           //   no answer; the remote reader's message says why)
    remote_changed,        // io_error: the file's ETag or date changed between two requests
    remote_range_ignored,  // io_error: the server answered a range request with the whole
                           //   file (remote_options::allow_full_download)
};

// Short stable identifier, e.g. "truncated". Never null.
const char* errc_name(errc code) noexcept;
// One-sentence description for people. Never null.
const char* errc_message(errc code) noexcept;
// The broad code a finer one belongs to, for callers that branch on kinds of
// failure: errc_group(external_parent_component) == external_path_unsafe,
// errc_group(io_open_failed) == io_error. Every other code is its own group.
errc errc_group(errc code) noexcept;

// An error value: what went wrong and where (byte offset from the start of
// the root buffer the view was made over; 0 for errors of files and
// arguments). `code == errc::ok` means success. For codes of the io_error
// group, `sys_errno` holds why the system refused: errno on POSIX,
// GetLastError() on Windows, or the file callback's nonzero code; it is 0
// everywhere else. 16 bytes on 64-bit hosts (sys_errno sits in what was
// padding).
struct [[nodiscard]] error {
    errc code = errc::ok;
    std::int32_t sys_errno = 0;
    std::uint64_t offset = 0;

    constexpr error() noexcept = default;
    constexpr error(errc c, std::uint64_t off = 0) noexcept : code(c), offset(off) {}
    constexpr error(errc c, std::uint64_t off, std::int32_t sys) noexcept
        : code(c), sys_errno(sys), offset(off) {}
    constexpr bool ok() const noexcept { return code == errc::ok; }
    constexpr explicit operator bool() const noexcept { return code != errc::ok; }
    friend constexpr bool operator==(error a, error b) noexcept {
        return a.code == b.code && a.offset == b.offset && a.sys_errno == b.sys_errno;
    }
    friend constexpr bool operator!=(error a, error b) noexcept { return !(a == b); }
};

#if ONNXVIEW_HAS_EXCEPTIONS
// Thrown only by result<T>::value_or_throw().
class exception : public std::runtime_error {
public:
    explicit exception(error e)
        : std::runtime_error(std::string(errc_message(e.code)) + " at byte " +
                             std::to_string(e.offset)),
          err_(e) {}
    error err() const noexcept { return err_; }

private:
    error err_;
};
#endif

// A value or an error. Cheap to copy when T is. value() on an error is
// misuse: ONNXVIEW_ASSERT stops it in builds with assertions; without them it
// returns the default-constructed T held inside, never garbage. Check ok()
// first or use value_or().
template <class T>
class [[nodiscard]] result {
public:
    constexpr result(T v) noexcept(std::is_nothrow_move_constructible<T>::value)
        : value_(std::move(v)) {}
    constexpr result(error e) noexcept : value_(), error_(e) {}
    constexpr result(errc c, std::uint64_t off = 0) noexcept : value_(), error_(c, off) {}

    constexpr bool ok() const noexcept { return error_.ok(); }
    constexpr explicit operator bool() const noexcept { return ok(); }
    constexpr error err() const noexcept { return error_; }
    constexpr const T& value() const& noexcept { return checked(), value_; }
    constexpr T& value() & noexcept { return checked(), value_; }
    constexpr T&& value() && noexcept { return checked(), std::move(value_); }
    constexpr const T& operator*() const& noexcept { return checked(), value_; }
    constexpr const T* operator->() const noexcept { return checked(), &value_; }
    constexpr T value_or(T fallback) const { return ok() ? value_ : fallback; }
#if ONNXVIEW_HAS_EXCEPTIONS
    const T& value_or_throw() const {
        if (!ok()) throw exception(error_);
        return value_;
    }
#endif

private:
    constexpr void checked() const noexcept { ONNXVIEW_ASSERT(error_.ok(), "result::value() of an error"); }
    T value_;
    error error_;
};

}  // namespace onnxview

#endif  // ONNXVIEW_ERROR_HPP
