// External data resolution: lexical checks on `location`, canonical-path
// containment, file-type and hard-link checks, range checks, SHA-1.
//
// The rules follow ONNX ExternalData.md and the reference C++ checker
// (onnx/checker.cc): relative paths only, no "..", no symlink escaping the
// model directory, no hard-linked files; offsets and lengths are decimal
// strings that must stay inside the file.
#if !defined(_WIN32) && !defined(_FILE_OFFSET_BITS)
#define _FILE_OFFSET_BITS 64
#endif

#include "onnxview/external_data.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "file_internal.hpp"
#include "sha1.hpp"

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace onnxview {

namespace {

constexpr std::uint32_t default_max_files = 4096;
constexpr std::uint64_t default_copy_below = 64 * 1024;
constexpr std::size_t max_location = 4095;

const char* const reason_names[] = {
    "none",
    "missing_location",
    "empty_location",
    "location_too_long",
    "duplicate_key",
    "in_memory_location",
    "nul_in_location",
    "absolute_path",
    "drive_path",
    "unc_path",
    "backslash",
    "parent_component",
    "symlink_escape",
    "directory",
    "not_regular",
    "hard_link",
    "offset_not_decimal",
    "length_not_decimal",
    "number_too_large",
    "range_overflow",
    "offset_past_end",
    "range_past_end",
    "length_mismatch",
    "rest_of_file_mismatch",
    "too_many_files",
    "too_many_bytes",
    "checksum_malformed",
    "checksum_mismatch",
    "io_failure",
    "out_of_memory",
    "file_empty",
};
static_assert(sizeof(reason_names) / sizeof(reason_names[0]) ==
                  static_cast<std::size_t>(external_reason::file_empty) + 1,
              "every external_reason needs a name");

enum class number { ok, not_decimal, too_large };

// Plain decimal: one or more ASCII digits, nothing else (no sign, no space).
number parse_decimal(std::string_view s, std::uint64_t* out) noexcept {
    if (s.empty()) return number::not_decimal;
    std::uint64_t v = 0;
    bool overflow = false;
    for (const char c : s) {
        if (c < '0' || c > '9') return number::not_decimal;
        const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) overflow = true;
        v = v * 10 + d;
    }
    if (overflow) return number::too_large;
    *out = v;
    return number::ok;
}

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The `checksum` encoding is not specified by ONNX; 40 hex digits (either
// case) is the only form accepted.
bool parse_sha1_hex(std::string_view s, std::uint8_t out[detail::sha1::digest_size]) noexcept {
    if (s.size() != 2 * detail::sha1::digest_size) return false;
    for (std::size_t i = 0; i < detail::sha1::digest_size; ++i) {
        const int hi = hex_value(s[2 * i]);
        const int lo = hex_value(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    return true;
}

// Lexical checks of `location`; on success writes the normalized path
// (components joined by '/', "." and empty components dropped) into out.
external_reason normalize_location(std::string_view loc, char* out, std::size_t* out_size) noexcept {
    if (loc.empty()) return external_reason::empty_location;
    if (loc.find('\0') != std::string_view::npos) return external_reason::nul_in_location;
    if (loc.size() > max_location) return external_reason::location_too_long;
    if (loc.size() >= 2 && (loc[0] == '\\' || loc[0] == '/') && (loc[1] == '\\' || loc[1] == '/')) {
        return external_reason::unc_path;
    }
    if (loc[0] == '/' || loc[0] == '\\') return external_reason::absolute_path;
    const std::size_t first_end = loc.find_first_of("/\\");
    if (loc.substr(0, first_end).find(':') != std::string_view::npos) return external_reason::drive_path;
#ifdef _WIN32
    // "name:stream" opens an NTFS alternate data stream.
    if (loc.find(':') != std::string_view::npos) return external_reason::drive_path;
#endif
    if (loc.find('\\') != std::string_view::npos) return external_reason::backslash;
    std::size_t n = 0;
    std::size_t pos = 0;
    while (pos <= loc.size()) {
        std::size_t end = loc.find('/', pos);
        if (end == std::string_view::npos) end = loc.size();
        const std::string_view comp = loc.substr(pos, end - pos);
        pos = end + 1;
        if (comp.empty() || comp == ".") continue;
        if (comp == "..") return external_reason::parent_component;
        if (n != 0) out[n++] = '/';
        std::memcpy(out + n, comp.data(), comp.size());
        n += comp.size();
    }
    if (n == 0) out[n++] = '.';  // "./" names the base directory: refused when opened
    out[n] = '\0';
    *out_size = n;
    return external_reason::none;
}

char* copy_string(const char* s, std::size_t n) noexcept {
    char* p = static_cast<char*>(std::malloc(n + 1));
    if (p != nullptr) {
        std::memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

// "<base>/<location>" in a malloc'd string (just location without a base).
char* join_path(const char* base, const char* location, std::size_t location_size) noexcept {
    if (base == nullptr) return copy_string(location, location_size);
    const std::size_t b = std::strlen(base);
    const bool slash = b != 0 && (base[b - 1] == '/' || base[b - 1] == '\\');
    char* p = static_cast<char*>(std::malloc(b + 1 + location_size + 1));
    if (p == nullptr) return nullptr;
    std::memcpy(p, base, b);
    std::size_t n = b;
    if (!slash) p[n++] = '/';
    std::memcpy(p + n, location, location_size);
    p[n + location_size] = '\0';
    return p;
}

struct freer {
    void* p;
    ~freer() { std::free(p); }
};

#ifdef _WIN32
// UTF-16 to malloc'd UTF-8; null on failure.
char* narrow(const wchar_t* w) noexcept {
    const int n = ::WideCharToMultiByte(CP_UTF8, 0, w, -1, nullptr, 0, nullptr, nullptr);
    if (n <= 0) return nullptr;
    char* s = static_cast<char*>(std::malloc(static_cast<std::size_t>(n)));
    if (s == nullptr) return nullptr;
    if (::WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, nullptr, nullptr) != n) {
        std::free(s);
        return nullptr;
    }
    return s;
}

// The final (symlink- and junction-resolved) path of an open handle, UTF-8.
char* final_path(HANDLE h) noexcept {
    const DWORD n = ::GetFinalPathNameByHandleW(h, nullptr, 0, FILE_NAME_NORMALIZED);
    if (n == 0) return nullptr;
    wchar_t* w = static_cast<wchar_t*>(std::malloc(sizeof(wchar_t) * (n + 1)));
    if (w == nullptr) return nullptr;
    const DWORD got = ::GetFinalPathNameByHandleW(h, w, n + 1, FILE_NAME_NORMALIZED);
    char* s = (got == 0 || got > n) ? nullptr : narrow(w);
    std::free(w);
    return s;
}

bool ascii_iequal(char a, char b) noexcept {
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    return a == b;
}
#endif

// Is `path` inside directory `base` (both canonical)?
bool is_under(const char* base, const char* path) noexcept {
    const std::size_t b = std::strlen(base);
    if (b == 0) return false;
#ifdef _WIN32
    for (std::size_t i = 0; i < b; ++i) {
        if (path[i] == '\0' || !ascii_iequal(base[i], path[i])) return false;
    }
    const char sep = '\\';
#else
    if (std::strncmp(base, path, b) != 0) return false;
    const char sep = '/';
#endif
    if (base[b - 1] == sep) return path[b] != '\0';  // base is a root ("/", "C:\")
    return path[b] == sep && path[b + 1] != '\0';
}

}  // namespace

const char* external_reason_name(external_reason reason) noexcept {
    const auto i = static_cast<std::size_t>(reason);
    return i < sizeof(reason_names) / sizeof(reason_names[0]) ? reason_names[i] : "unknown";
}

struct external_data_resolver::slot {
    char* location = nullptr;  // normalized, NUL-terminated, malloc'd
    std::size_t location_size = 0;
    mapped_file file;          // storage::none for an empty file
    bool digest_done = false;
    std::uint8_t digest[detail::sha1::digest_size] = {};
    ~slot() { std::free(location); }
};

// --- construction ---------------------------------------------------------

external_data_resolver::external_data_resolver(external_data_resolver&& other) noexcept
    : options_(other.options_),
      callbacks_(other.callbacks_),
      use_callbacks_(other.use_callbacks_),
      base_(other.base_),
      slots_(other.slots_),
      count_(other.count_),
      capacity_(other.capacity_),
      total_bytes_(other.total_bytes_),
      detail_(other.detail_) {
    other.base_ = nullptr;
    other.slots_ = nullptr;
    other.count_ = other.capacity_ = 0;
    other.total_bytes_ = 0;
}

external_data_resolver& external_data_resolver::operator=(external_data_resolver&& other) noexcept {
    if (this != &other) {
        clear();
        options_ = other.options_;
        callbacks_ = other.callbacks_;
        use_callbacks_ = other.use_callbacks_;
        base_ = other.base_;
        slots_ = other.slots_;
        count_ = other.count_;
        capacity_ = other.capacity_;
        total_bytes_ = other.total_bytes_;
        detail_ = other.detail_;
        other.base_ = nullptr;
        other.slots_ = nullptr;
        other.count_ = other.capacity_ = 0;
        other.total_bytes_ = 0;
    }
    return *this;
}

external_data_resolver::~external_data_resolver() { clear(); }

void external_data_resolver::clear() noexcept {
    for (std::size_t i = 0; i < count_; ++i) delete slots_[i];
    std::free(slots_);
    std::free(base_);
    slots_ = nullptr;
    base_ = nullptr;
    count_ = capacity_ = 0;
    total_bytes_ = 0;
}

result<external_data_resolver> external_data_resolver::create(const external_data_options& options,
                                                              io_detail* detail) noexcept {
    external_data_resolver r;
    r.options_ = options;
    r.options_.model_path = nullptr;
    r.options_.base_dir = nullptr;
    r.options_.callbacks = nullptr;
    if (r.options_.max_files == 0) r.options_.max_files = default_max_files;
    if (r.options_.max_total_bytes == 0) r.options_.max_total_bytes = std::numeric_limits<std::uint64_t>::max();
    if (r.options_.copy_below == 0) r.options_.copy_below = default_copy_below;
    if (options.callbacks != nullptr) {
        r.callbacks_ = *options.callbacks;
        r.use_callbacks_ = true;
        if (r.callbacks_.map == nullptr && r.callbacks_.read_whole == nullptr) return errc::invalid_argument;
    }

    // The base directory as given: base_dir, else dirname(model_path), else ".".
    char* given = nullptr;
    if (options.base_dir != nullptr) {
        if (*options.base_dir == '\0') return errc::invalid_argument;
        given = copy_string(options.base_dir, std::strlen(options.base_dir));
    } else if (options.model_path != nullptr) {
        const char* p = options.model_path;
        const char* slash = std::strrchr(p, '/');
#ifdef _WIN32
        const char* back = std::strrchr(p, '\\');
        if (back != nullptr && (slash == nullptr || back > slash)) slash = back;
#endif
        if (slash == nullptr) given = copy_string(".", 1);
        else if (slash == p) given = copy_string("/", 1);
        else given = copy_string(p, static_cast<std::size_t>(slash - p));
    } else if (!r.use_callbacks_) {
        given = copy_string(".", 1);
    }
    if (options.base_dir != nullptr || options.model_path != nullptr || !r.use_callbacks_) {
        if (given == nullptr) return errc::out_of_memory;
    }
    if (r.use_callbacks_) {
        r.base_ = given;  // passed to the callbacks as given, never canonicalized
        return r;
    }
    freer given_owner{given};

#ifdef _WIN32
    wchar_t* w = detail::widen(given);
    if (w == nullptr) return errc::invalid_argument;
    HANDLE h = ::CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                             OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    const DWORD e = ::GetLastError();
    std::free(w);
    if (h == INVALID_HANDLE_VALUE) return detail::sys_failure(detail, "CreateFile", int(e));
    BY_HANDLE_FILE_INFORMATION info;
    const bool is_dir = ::GetFileInformationByHandle(h, &info) &&
                        (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    r.base_ = is_dir ? final_path(h) : nullptr;
    ::CloseHandle(h);
    if (!is_dir) return errc::invalid_argument;
    if (r.base_ == nullptr) return errc::out_of_memory;
#else
    char* canon = ::realpath(given, nullptr);
    if (canon == nullptr) return detail::sys_failure(detail, "realpath", errno);
    struct stat st;
    if (::stat(canon, &st) != 0) {
        const int e = errno;
        std::free(canon);
        return detail::sys_failure(detail, "stat", e);
    }
    if (!S_ISDIR(st.st_mode)) {
        std::free(canon);
        return errc::invalid_argument;
    }
    r.base_ = canon;
#endif
    return r;
}

// --- errors -------------------------------------------------------------

error external_data_resolver::fail(errc code, external_reason reason, std::string_view tensor,
                                   std::string_view location, const char* what) noexcept {
    detail_.reason = reason;
    const int t = static_cast<int>(tensor.size() < 200 ? tensor.size() : 200);
    const int l = static_cast<int>(location.size() < 200 ? location.size() : 200);
    if (detail_.io.sys_errno != 0) {
        std::snprintf(detail_.message, sizeof detail_.message,
                      "tensor '%.*s': location '%.*s': %s (%s: %s)", t, tensor.data(), l,
                      location.data(), what, detail_.io.operation, std::strerror(detail_.io.sys_errno));
    } else {
        std::snprintf(detail_.message, sizeof detail_.message, "tensor '%.*s': location '%.*s': %s", t,
                      tensor.data(), l, location.data(), what);
    }
    return error(code);
}

// --- opening a file --------------------------------------------------------

error external_data_resolver::open_slot(const char* location, std::size_t length,
                                        std::string_view tensor, slot** out) noexcept {
    const std::string_view loc(location, length);
    if (count_ >= options_.max_files) {
        return fail(errc::external_limit, external_reason::too_many_files, tensor, loc,
                    "more external files than max_files");
    }
    if (count_ == capacity_) {
        const std::size_t cap = capacity_ == 0 ? 8 : 2 * capacity_;
        slot** grown = static_cast<slot**>(std::realloc(slots_, cap * sizeof(slot*)));
        if (grown == nullptr) return fail(errc::out_of_memory, external_reason::out_of_memory, tensor, loc, "out of memory");
        slots_ = grown;
        capacity_ = cap;
    }
    // Located by "<base>/<location>"; the '#' names of in-memory data go to callbacks bare.
    char* path = join_path(location[0] == '#' ? nullptr : base_, location, length);
    if (path == nullptr) return fail(errc::out_of_memory, external_reason::out_of_memory, tensor, loc, "out of memory");
    freer path_owner{path};

    mapped_file file;
    std::uint64_t size = 0;
    if (use_callbacks_) {
        result<mapped_file> f = mapped_file::from_callbacks(path, callbacks_, &detail_.io);
        if (f.err().code == errc::file_empty) {
            size = 0;  // an empty file: only empty ranges resolve
        } else if (!f) {
            return fail(f.err().code, external_reason::io_failure, tensor, loc,
                        f.err().code == errc::io_error ? "the file callbacks failed" : "the file callbacks gave no usable bytes");
        } else {
            file = std::move(f.value());
            size = file.size();
        }
        if (size > options_.max_total_bytes - total_bytes_) {
            return fail(errc::external_limit, external_reason::too_many_bytes, tensor, loc,
                        "external files larger in total than max_total_bytes");
        }
    } else {
#ifdef _WIN32
        // The base comes from GetFinalPathNameByHandle with a \\?\ prefix,
        // under which Windows takes '/' literally, not as a separator.
        for (char* c = path; *c != '\0'; ++c) {
            if (*c == '/') *c = '\\';
        }
        wchar_t* w = detail::widen(path);
        if (w == nullptr) return fail(errc::external_path_unsafe, external_reason::nul_in_location, tensor, loc, "not valid UTF-8");
        const DWORD attrs = ::GetFileAttributesW(w);
        if (attrs == INVALID_FILE_ATTRIBUTES) {
            detail_.io = {int(::GetLastError()), "GetFileAttributes"};
            std::free(w);
            return fail(errc::io_error, external_reason::io_failure, tensor, loc, "cannot open");
        }
        if (attrs & FILE_ATTRIBUTE_DIRECTORY) {
            std::free(w);
            return fail(errc::is_directory, external_reason::directory, tensor, loc, "names a directory");
        }
        HANDLE h = ::CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                                 OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
        const DWORD e = ::GetLastError();
        std::free(w);
        if (h == INVALID_HANDLE_VALUE) {
            detail_.io = {int(e), "CreateFile"};
            return fail(errc::io_error, external_reason::io_failure, tensor, loc, "cannot open");
        }
        struct handle_closer {
            HANDLE h;
            ~handle_closer() { ::CloseHandle(h); }
        } closer{h};
        if (::GetFileType(h) != FILE_TYPE_DISK) {
            return fail(errc::not_regular_file, external_reason::not_regular, tensor, loc, "not a regular file");
        }
        char* resolved = final_path(h);
        if (resolved == nullptr) return fail(errc::out_of_memory, external_reason::out_of_memory, tensor, loc, "cannot resolve the path");
        const bool inside = is_under(base_, resolved);
        std::free(resolved);
        if (!inside) {
            return fail(errc::external_path_unsafe, external_reason::symlink_escape, tensor, loc,
                        "resolves outside the base directory (symlink or junction)");
        }
        BY_HANDLE_FILE_INFORMATION info;
        if (!::GetFileInformationByHandle(h, &info)) {
            detail_.io = {int(::GetLastError()), "GetFileInformationByHandle"};
            return fail(errc::io_error, external_reason::io_failure, tensor, loc, "cannot inspect");
        }
        if (info.nNumberOfLinks > 1 && !options_.allow_hard_links) {
            return fail(errc::external_hard_link, external_reason::hard_link, tensor, loc, "file has more than one hard link");
        }
        size = (std::uint64_t(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
        if (size > options_.max_total_bytes - total_bytes_) {
            return fail(errc::external_limit, external_reason::too_many_bytes, tensor, loc,
                        "external files larger in total than max_total_bytes");
        }
        if (size != 0) {
            open_options o;
            o.hint = options_.hint;
            o.copy_below = options_.copy_below;
            result<mapped_file> f = detail::from_handle(h, o, &detail_.io);
            if (!f) return fail(f.err().code, external_reason::io_failure, tensor, loc, "cannot map or read");
            file = std::move(f.value());
        }
#else
        // realpath resolves every symlink; the result must stay under the
        // (canonical) base directory.
        char* canon = ::realpath(path, nullptr);
        if (canon == nullptr) {
            detail_.io = {errno, "realpath"};
            return fail(errc::io_error, external_reason::io_failure, tensor, loc, "cannot resolve");
        }
        freer canon_owner{canon};
        if (std::strcmp(canon, base_) == 0) {
            return fail(errc::is_directory, external_reason::directory, tensor, loc, "names the base directory");
        }
        if (!is_under(base_, canon)) {
            return fail(errc::external_path_unsafe, external_reason::symlink_escape, tensor, loc,
                        "resolves outside the base directory through a symlink");
        }
        // stat before open: a FIFO would block open() and a device may act on it.
        struct stat st;
        if (::stat(canon, &st) != 0) {
            detail_.io = {errno, "stat"};
            return fail(errc::io_error, external_reason::io_failure, tensor, loc, "cannot stat");
        }
        if (S_ISDIR(st.st_mode)) return fail(errc::is_directory, external_reason::directory, tensor, loc, "names a directory");
        if (!S_ISREG(st.st_mode)) {
            return fail(errc::not_regular_file, external_reason::not_regular, tensor, loc,
                        "not a regular file (device, FIFO or socket)");
        }
        const int fd = ::open(canon, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd < 0) {
            detail_.io = {errno, "open"};
            return fail(errc::io_error, external_reason::io_failure, tensor, loc, "cannot open");
        }
        struct fd_closer {
            int fd;
            ~fd_closer() { ::close(fd); }
        } closer{fd};
        if (::fstat(fd, &st) != 0) {
            detail_.io = {errno, "fstat"};
            return fail(errc::io_error, external_reason::io_failure, tensor, loc, "cannot stat");
        }
        if (!S_ISREG(st.st_mode)) {  // swapped between stat and open
            return fail(errc::not_regular_file, external_reason::not_regular, tensor, loc, "not a regular file");
        }
        if (st.st_nlink > 1 && !options_.allow_hard_links) {
            return fail(errc::external_hard_link, external_reason::hard_link, tensor, loc,
                        "file has more than one hard link");
        }
        size = static_cast<std::uint64_t>(st.st_size);
        if (size > options_.max_total_bytes - total_bytes_) {
            return fail(errc::external_limit, external_reason::too_many_bytes, tensor, loc,
                        "external files larger in total than max_total_bytes");
        }
        if (size != 0) {
            open_options o;
            o.hint = options_.hint;
            o.copy_below = options_.copy_below;
            result<mapped_file> f = detail::from_fd(fd, size, o, &detail_.io);
            if (!f) {
                return fail(f.err().code,
                            f.err().code == errc::out_of_memory ? external_reason::out_of_memory : external_reason::io_failure,
                            tensor, loc, "cannot map or read");
            }
            file = std::move(f.value());
        }
#endif
    }

    slot* s = new (std::nothrow) slot;
    if (s == nullptr) return fail(errc::out_of_memory, external_reason::out_of_memory, tensor, loc, "out of memory");
    s->location = copy_string(location, length);
    if (s->location == nullptr) {
        delete s;
        return fail(errc::out_of_memory, external_reason::out_of_memory, tensor, loc, "out of memory");
    }
    s->location_size = length;
    s->file = std::move(file);
    total_bytes_ += size;
    slots_[count_++] = s;
    *out = s;
    return {};
}

// --- resolving --------------------------------------------------------------

result<external_span> external_data_resolver::resolve(const external_entry* entries, std::size_t count,
                                                      std::uint64_t expected_size,
                                                      std::string_view tensor) noexcept {
    detail_ = external_error_detail{};
    if (entries == nullptr && count != 0) return errc::invalid_argument;

    std::string_view location, offset_text, length_text, checksum_text;
    bool has_location = false, has_offset = false, has_length = false, has_checksum = false;
    std::uint32_t ignored = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::string_view key = entries[i].key;
        std::string_view* value = nullptr;
        bool* seen = nullptr;
        if (key == "location") value = &location, seen = &has_location;
        else if (key == "offset") value = &offset_text, seen = &has_offset;
        else if (key == "length") value = &length_text, seen = &has_length;
        else if (key == "checksum") value = &checksum_text, seen = &has_checksum;
        if (seen == nullptr) {
            ++ignored;
            continue;
        }
        if (*seen) {
            return fail(errc::external_bad_entry, external_reason::duplicate_key, tensor, location,
                        "a key is given twice");
        }
        *seen = true;
        *value = entries[i].value;
    }
    if (!has_location) {
        return fail(errc::external_bad_entry, external_reason::missing_location, tensor, {}, "no 'location' entry");
    }
    if (location.empty()) {
        return fail(errc::external_bad_entry, external_reason::empty_location, tensor, location, "empty location");
    }

    char normalized[max_location + 2];
    std::size_t normalized_size = 0;
    if (location[0] == '#') {
        // Python ModelContainer's in-memory tensors: not a path at all.
        if (!use_callbacks_) {
            return fail(errc::external_bad_entry, external_reason::in_memory_location, tensor, location,
                        "in-memory location ('#...') needs file callbacks");
        }
        if (location.find('\0') != std::string_view::npos) {
            return fail(errc::external_path_unsafe, external_reason::nul_in_location, tensor, location, "location contains NUL");
        }
        if (location.size() > max_location) {
            return fail(errc::external_bad_entry, external_reason::location_too_long, tensor, location, "location too long");
        }
        std::memcpy(normalized, location.data(), location.size());
        normalized[location.size()] = '\0';
        normalized_size = location.size();
    } else {
        const external_reason why = normalize_location(location, normalized, &normalized_size);
        switch (why) {
            case external_reason::none: break;
            case external_reason::location_too_long:
                return fail(errc::external_bad_entry, why, tensor, location, "location longer than 4095 bytes");
            case external_reason::nul_in_location:
                return fail(errc::external_path_unsafe, why, tensor, location, "location contains NUL");
            case external_reason::absolute_path:
                return fail(errc::external_path_unsafe, why, tensor, location, "absolute path");
            case external_reason::drive_path:
                return fail(errc::external_path_unsafe, why, tensor, location, "drive letter or ':' in path");
            case external_reason::unc_path:
                return fail(errc::external_path_unsafe, why, tensor, location, "UNC or network path");
            case external_reason::backslash:
                return fail(errc::external_path_unsafe, why, tensor, location, "backslash in path");
            case external_reason::parent_component:
                return fail(errc::external_path_unsafe, why, tensor, location, "a '..' component leaves the base directory");
            default:
                return fail(errc::external_path_unsafe, why, tensor, location, "unsafe location");
        }
    }

    std::uint64_t offset = 0, length = 0;
    if (has_offset) {
        const number n = parse_decimal(offset_text, &offset);
        if (n == number::not_decimal) {
            return fail(errc::external_bad_entry, external_reason::offset_not_decimal, tensor, location,
                        "offset is not a plain decimal number");
        }
        if (n == number::too_large) {
            return fail(errc::external_out_of_bounds, external_reason::number_too_large, tensor, location,
                        "offset above 2^64-1");
        }
    }
    if (has_length) {
        const number n = parse_decimal(length_text, &length);
        if (n == number::not_decimal) {
            return fail(errc::external_bad_entry, external_reason::length_not_decimal, tensor, location,
                        "length is not a plain decimal number");
        }
        if (n == number::too_large) {
            return fail(errc::external_out_of_bounds, external_reason::number_too_large, tensor, location,
                        "length above 2^64-1");
        }
        if (length > std::numeric_limits<std::uint64_t>::max() - offset) {
            return fail(errc::external_out_of_bounds, external_reason::range_overflow, tensor, location,
                        "offset + length overflows 64 bits");
        }
        if (expected_size != unknown_size && length != expected_size) {
            return fail(errc::payload_size_mismatch, external_reason::length_mismatch, tensor, location,
                        "length differs from the tensor's dims x element size");
        }
    }
    std::uint8_t want_digest[detail::sha1::digest_size];
    const bool check_sum = options_.verify_checksum && has_checksum;
    if (check_sum && !parse_sha1_hex(checksum_text, want_digest)) {
        return fail(errc::external_bad_entry, external_reason::checksum_malformed, tensor, location,
                    "checksum is not 40 hexadecimal digits");
    }

    slot* s = nullptr;
    for (std::size_t i = 0; i < count_; ++i) {
        if (slots_[i]->location_size == normalized_size &&
            std::memcmp(slots_[i]->location, normalized, normalized_size) == 0) {
            s = slots_[i];
            break;
        }
    }
    if (s == nullptr) {
        const error e = open_slot(normalized, normalized_size, tensor, &s);
        if (e) return e;
    }

    const std::uint64_t file_size = s->file.size();
    if (offset > file_size) {
        return fail(errc::external_out_of_bounds, external_reason::offset_past_end, tensor, location,
                    "offset past the end of the file");
    }
    if (has_length) {
        if (length > file_size - offset) {
            return fail(errc::external_out_of_bounds, external_reason::range_past_end, tensor, location,
                        "offset + length past the end of the file");
        }
    } else {
        length = file_size - offset;
        if (expected_size != unknown_size && length != expected_size) {
            return fail(errc::payload_size_mismatch, external_reason::rest_of_file_mismatch, tensor, location,
                        "no length, and the rest of the file differs from dims x element size");
        }
    }
    if (check_sum) {
        if (!s->digest_done) {
            detail::sha1::digest(s->file.data(), s->file.size(), s->digest);
            s->digest_done = true;
        }
        if (std::memcmp(s->digest, want_digest, sizeof want_digest) != 0) {
            return fail(errc::checksum_mismatch, external_reason::checksum_mismatch, tensor, location,
                        "SHA-1 of the file differs from 'checksum'");
        }
    }

    external_span span;
    span.data = s->file.data() + offset;
    span.size = static_cast<std::size_t>(length);
    span.location = std::string_view(s->location, s->location_size);
    span.offset = offset;
    span.offset_in_page = static_cast<std::uint32_t>(offset % 4096);
    span.ignored_keys = ignored;
    span.file = &s->file;
    return span;
}

}  // namespace onnxview
