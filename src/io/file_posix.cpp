// The io layer on POSIX: mapped_file (stat, open, mmap or read, madvise /
// posix_fadvise) and the external-data primitives (realpath, O_NOFOLLOW).
#ifndef _WIN32

#if !defined(_FILE_OFFSET_BITS)
#define _FILE_OFFSET_BITS 64  // 32-bit hosts: stat sizes above 2 GiB
#endif

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "file_internal.hpp"
#include "onnxview/file.hpp"

namespace onnxview {
namespace detail {

namespace {

struct fd_closer {
    int fd;
    ~fd_closer() {
        if (fd >= 0) ::close(fd);
    }
};

int madvice_of(access_hint hint) noexcept {
    switch (hint) {
        case access_hint::sequential: return MADV_SEQUENTIAL;
        case access_hint::random: return MADV_RANDOM;
        case access_hint::willneed: return MADV_WILLNEED;
        case access_hint::dontneed: return MADV_DONTNEED;
        case access_hint::normal: break;
    }
    return MADV_NORMAL;
}

void fadvise(int fd, access_hint hint) noexcept {
#if defined(POSIX_FADV_SEQUENTIAL)
    int advice = POSIX_FADV_NORMAL;
    switch (hint) {
        case access_hint::sequential: advice = POSIX_FADV_SEQUENTIAL; break;
        case access_hint::random: advice = POSIX_FADV_RANDOM; break;
        case access_hint::willneed: advice = POSIX_FADV_WILLNEED; break;
        case access_hint::dontneed: advice = POSIX_FADV_DONTNEED; break;
        case access_hint::normal: return;
    }
    (void)::posix_fadvise(fd, 0, 0, advice);  // a hint: failure changes nothing
#else
    (void)fd;
    (void)hint;
#endif
}

error sys_error(errc code) noexcept { return error(code, 0, errno); }

}  // namespace

std::size_t page_size() noexcept {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : 4096;
}

error read_descriptor_at(int descriptor, std::uint64_t offset, void* out, std::size_t size) noexcept {
    char* to = static_cast<char*>(out);
    while (size != 0) {
        // Linux moves at most 0x7ffff000 bytes per call; ask for 1 GiB at a time.
        const std::size_t want = size < (std::size_t(1) << 30) ? size : std::size_t(1) << 30;
        const ssize_t got = ::pread(descriptor, to, want, static_cast<off_t>(offset));
        if (got < 0) {
            if (errno == EINTR) continue;
            return sys_error(errc::io_read_failed);
        }
        if (got == 0) return error(errc::io_read_failed, 0, EIO);  // the file shrank (after fstat, or while kept open)
        to += got;
        offset += static_cast<std::uint64_t>(got);
        size -= static_cast<std::size_t>(got);
    }
    return {};
}

namespace {

// Maps or reads the whole of an open regular file of `size` bytes. The
// descriptor stays owned by the caller (a mapping does not need it open).
result<mapped_file> from_fd(int fd, std::uint64_t size, const options& opts) noexcept {
    if (size == 0) return errc::file_empty;
    if (size > std::numeric_limits<std::size_t>::max()) return errc::file_too_large;
    const std::size_t n = static_cast<std::size_t>(size);
    const bool copy = opts.file_mode == open_mode::read ||
                      (opts.file_copy_below != 0 && size < opts.file_copy_below);
    if (!copy) {
        void* p = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            if (opts.file_hint != access_hint::normal) {
                (void)::madvise(p, n, madvice_of(opts.file_hint));
            }
            mapped_file f = file_access::make(static_cast<const char*>(p), n, mapped_file::storage::mapped);
            if (opts.keep_descriptor) {
                // A copy, so that the caller's descriptor stays the caller's.
                const int kept = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
                if (kept < 0) return sys_error(errc::io_open_failed);  // out of descriptors: f unmaps
                file_access::keep_descriptor(f, kept);
            }
            return f;
        }
        if (opts.file_mode == open_mode::map) return sys_error(errc::io_map_failed);
        // automatic: some file systems (FUSE, some network mounts) cannot map; read instead.
    }
    fadvise(fd, opts.file_hint == access_hint::normal ? access_hint::sequential : opts.file_hint);
    const heap h(opts.memory);
    char* buf = static_cast<char*>(h.allocate(n));
    if (buf == nullptr) return errc::out_of_memory;
    if (const error e = read_descriptor_at(fd, 0, buf, n)) {
        h.deallocate(buf, n);
        return e;
    }
    return file_access::from_buffer(buf, n, h);
}

}  // namespace

const path_flavor host_path_flavor = path_flavor::posix;

void system_error_text(std::int32_t code, char* out, std::size_t out_size) noexcept {
    if (out_size == 0) return;
    const char* text = std::strerror(code);
    const std::size_t n = std::strlen(text) < out_size - 1 ? std::strlen(text) : out_size - 1;
    std::memcpy(out, text, n);
    out[n] = '\0';
}

result<char*> canonical_directory(const char* path, const heap& h) noexcept {
    char canonical[PATH_MAX];  // realpath's own buffer would come from malloc
    if (::realpath(path, canonical) == nullptr) return sys_error(errc::io_resolve_failed);
    struct stat st;
    if (::stat(canonical, &st) != 0) return sys_error(errc::io_stat_failed);
    if (!S_ISDIR(st.st_mode)) return errc::invalid_argument;
    char* copy = h.copy_string(canonical);
    if (copy == nullptr) return errc::out_of_memory;
    return copy;
}

result<mapped_file> open_beneath(const char* base, std::string_view relative,
                                 const beneath_options& options) noexcept {
    const heap h(options.file.memory);
    const owned_string path(h, join_path(h, base, relative));
    if (path.get() == nullptr) return errc::out_of_memory;
    // realpath resolves every symlink; the result must stay beneath the
    // (canonical) base directory.
    char canonical[PATH_MAX];
    if (::realpath(path.get(), canonical) == nullptr) return sys_error(errc::io_resolve_failed);
    if (std::strcmp(canonical, base) == 0) return errc::is_directory;
    if (!is_beneath(base, canonical, path_flavor::posix)) return errc::external_symlink_escape;
    // stat before open: a FIFO would block open() and a device may act on it.
    struct stat st;
    if (::stat(canonical, &st) != 0) return sys_error(errc::io_stat_failed);
    if (S_ISDIR(st.st_mode)) return errc::is_directory;
    if (!S_ISREG(st.st_mode)) return errc::not_regular_file;
    const int fd = ::open(canonical, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) return sys_error(errc::io_open_failed);
    fd_closer closer{fd};
    if (::fstat(fd, &st) != 0) return sys_error(errc::io_stat_failed);
    if (!S_ISREG(st.st_mode)) return errc::not_regular_file;  // swapped between stat and open
    if (st.st_nlink > 1 && !options.allow_hard_links) return errc::external_hard_link;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > options.max_size) return errc::external_too_many_bytes;
    if (size == 0) return mapped_file();
    return from_fd(fd, size, options.file);
}

void unmap(const char* data, std::size_t size) noexcept {
    ::munmap(const_cast<char*>(data), size);
}

error advise_mapping(const char* data, std::size_t size, access_hint hint, std::uint64_t offset,
                     std::uint64_t length) noexcept {
    // madvise wants a page-aligned start; the mapping itself starts on a page.
    const std::size_t page = page_size();
    const std::size_t begin = static_cast<std::size_t>(offset) & ~(page - 1);
    const std::size_t rest = size - static_cast<std::size_t>(offset);
    const std::size_t len = (length == 0 || length > rest) ? rest : static_cast<std::size_t>(length);
    const std::size_t end = static_cast<std::size_t>(offset) + len;
    if (end == begin) return {};
    if (::madvise(const_cast<char*>(data) + begin, end - begin, madvice_of(hint)) != 0) {
        return error(errc::io_error, 0, errno);
    }
    return {};
}

bool mapping_resident(const char* data, std::size_t size, std::uint32_t sample_pages) noexcept {
    if (size == 0) return true;
    const std::size_t page = page_size();
    const std::size_t pages = (size + page - 1) / page;
    const std::size_t samples = sample_pages == 0 ? 1 : (sample_pages < pages ? sample_pages : pages);
    for (std::size_t i = 0; i < samples; ++i) {
        // Evenly spread, the first and the last page included.
        const std::size_t at = samples == 1 ? 0 : i * (pages - 1) / (samples - 1);
#if defined(__linux__)
        unsigned char in = 0;
#else
        char in = 0;  // the BSDs and macOS declare the vector as char
#endif
        if (::mincore(const_cast<char*>(data) + at * page, page, &in) != 0 || (in & 1) == 0) return false;
    }
    return true;
}

error make_mapping_writable(const char* data, std::size_t size, bool writable) noexcept {
#if defined(__linux__)
    // Private: writes (none but copy_mapped_pages's faults) never reach the file.
    const int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
    if (::mprotect(const_cast<char*>(data), size, prot) != 0) return error(errc::io_error, 0, errno);
#else
    (void)data, (void)size, (void)writable;
#endif
    return {};
}

error copy_mapped_pages(const char* data, std::size_t size, std::uint64_t offset, std::uint64_t length) noexcept {
#if defined(__linux__)
    // Older headers lack the name; the kernel answers EINVAL before 5.14.
    constexpr int populate_write = 23;  // MADV_POPULATE_WRITE
    const std::size_t page = page_size();
    const std::size_t rest = size - static_cast<std::size_t>(offset);
    const std::size_t len = (length == 0 || length > rest) ? rest : static_cast<std::size_t>(length);
    const std::size_t begin = static_cast<std::size_t>(offset) & ~(page - 1);
    const std::size_t end = (static_cast<std::size_t>(offset) + len + page - 1) & ~(page - 1);
    if (end == begin) return {};
    // A write fault on a private file mapping copies the one page it hits
    // (a read fault would map the whole folio); one call for the range.
    if (::madvise(const_cast<char*>(data) + begin, end - begin, populate_write) != 0)
        return error(errc::io_error, 0, errno);
#else
    (void)data, (void)size, (void)offset, (void)length;
#endif
    return {};
}

}  // namespace detail

result<mapped_file> mapped_file::open(const char* path, const options& opts) noexcept {
    if (path == nullptr || *path == '\0') return errc::invalid_argument;
    // stat before open: opening a FIFO for reading would block until a writer
    // comes, and opening a device may have side effects.
    struct stat st;
    if (::stat(path, &st) != 0) return detail::sys_error(errc::io_stat_failed);
    if (S_ISDIR(st.st_mode)) return errc::is_directory;
    if (!S_ISREG(st.st_mode)) return errc::not_regular_file;
    // O_NONBLOCK: should the path be swapped for a FIFO after the stat, open
    // still returns at once (and the fstat below refuses it).
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return detail::sys_error(errc::io_open_failed);
    detail::fd_closer closer{fd};
    if (::fstat(fd, &st) != 0) return detail::sys_error(errc::io_stat_failed);
    if (S_ISDIR(st.st_mode)) return errc::is_directory;
    if (!S_ISREG(st.st_mode)) return errc::not_regular_file;
    return detail::from_fd(fd, static_cast<std::uint64_t>(st.st_size), opts);
}

result<file_stamp> stamp_file(const char* path) noexcept {
    if (path == nullptr || *path == '\0') return errc::invalid_argument;
    struct stat st;
    if (::stat(path, &st) != 0) return detail::sys_error(errc::io_stat_failed);
    if (S_ISDIR(st.st_mode)) return errc::is_directory;
#if defined(__APPLE__)
    const struct timespec& modified = st.st_mtimespec;
#else
    const struct timespec& modified = st.st_mtim;
#endif
    return file_stamp{static_cast<std::uint64_t>(st.st_size),
                      static_cast<std::int64_t>(modified.tv_sec) * 1000000000 + modified.tv_nsec};
}

namespace detail {
long long write_some(int fd, const char* data, std::size_t size, int& sys_error) noexcept {
    for (;;) {
        const ssize_t n = ::write(fd, data, size);
        if (n >= 0 || errno != EINTR) {
            sys_error = n < 0 ? errno : n == 0 ? ENOSPC : 0;
            return n > 0 ? n : -1;
        }
    }
}
long long copy_some(int in_fd, std::uint64_t offset, int out_fd, std::size_t size, int& sys_error) noexcept {
#if defined(__linux__) && defined(__GLIBC__)
    for (;;) {
        off_t from = static_cast<off_t>(offset);
        const ssize_t n = ::copy_file_range(in_fd, &from, out_fd, nullptr, size, 0);
        if (n > 0) return n;
        if (n == 0 || errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL) return 0;
        if (errno == EINTR) continue;
        sys_error = errno;
        return -1;
    }
#else
    (void)in_fd, (void)offset, (void)out_fd, (void)size, (void)sys_error;
    return 0;
#endif
}

int open_for_reading(const char* path, int& sys_error) noexcept {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    sys_error = fd < 0 ? errno : 0;
    return fd;
}

void close_fd(int fd) noexcept { (void)::close(fd); }

}  // namespace detail

void release_pages(const void* data, std::size_t size) noexcept {
#ifdef MADV_PAGEOUT
    // Whole pages inside the range only; MADV_PAGEOUT reclaims without
    // discarding (unlike MADV_DONTNEED on a private buffer).
    const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + size) / page * page;
    if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_PAGEOUT);
#else
    (void)data, (void)size;
#endif
}

}  // namespace onnxview

#endif  // !_WIN32
