// onnxview/file.hpp - the bytes of a file: mapped, read, borrowed or supplied.
//
// This is the only place (with external_data.hpp) where onnxview touches the
// operating system. The model layer knows nothing of files: it takes a
// std::string_view, and `mapped_file::bytes()` is where that view comes from.
//
//   // From a path (mmap on POSIX, MapViewOfFile on Windows, read() fallback):
//   auto f = onnxview::mapped_file::open("model.onnx");
//   if (!f) { /* f.err().code (io_open_failed, ...), f.err().sys_errno */ }
//   std::string_view bytes = f->bytes();   // valid while *f lives
//
//   // From memory the caller owns (nothing is copied or freed):
//   auto m = onnxview::mapped_file::from_memory(buf, len);
//
//   // From a virtual file system (game engines, archives):
//   onnxview::file_callbacks cb{};  cb.read_whole = my_read; cb.release = my_free;
//   auto v = onnxview::mapped_file::from_callbacks("pak://model.onnx", cb);
//
//   // Supplied on demand (a remote file, onnxview/remote.hpp): bytes()
//   // covers the whole file, but a range may be read only after ensure().
//   auto r = onnxview::mapped_file::supplied(region, size, &supplier);
//   if (r.ensure(offset, length)) { /* the supplier could not fetch them */ }
//
// Lifetime rule. Views (wire, model) hold no reference: every view made over
// `bytes()` is valid while the mapped_file that produced it lives. Moving a
// mapped_file does not move its bytes, so views survive moves of their owner.
// When several owners must keep the bytes alive (a model handle, a cache, a
// second thread), wrap the file in a `shared_file` (one allocation, an atomic
// count, no std::shared_ptr) and let the last copy unmap it.
//
// A file that shrinks while mapped. The mapping keeps the pages that still
// exist; touching a page past the new end raises SIGBUS on POSIX (an
// in-page exception on Windows). onnxview cannot prevent this for files it
// maps: do not truncate a model file while it is in use, or open it with
// `open_mode::read` (a private copy) or a `file_copy_below` threshold. The
// external-data resolver copies small files for this reason (see
// external_data.hpp).
#ifndef ONNXVIEW_FILE_HPP
#define ONNXVIEW_FILE_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/error.hpp"
#include "onnxview/options.hpp"

namespace onnxview {

namespace detail {
struct file_access;
}

// How far before a byte that is read the system may map pages of a file
// mapping along with its own: fault-around and large page-cache folios map
// up to one aligned 2 MiB block at a time. A streaming reader that drops
// the pages behind it drops this much more than it has passed, or the pages
// mapped again behind its mark stay resident.
constexpr std::uint64_t mapping_fault_span = std::uint64_t(2) << 20;

// Gives the system back the whole pages of [data, data + size) that a
// streaming reader is done with (MADV_PAGEOUT where Linux has it; a no-op
// elsewhere). Never discards content, so any memory may be passed; mapped
// file pages are read back on the next access.
void release_pages(const void* data, std::size_t size) noexcept;

// What tells one version of a file from another cheaply: its size and
// its last modification time (nanoseconds since 1970-01-01 UTC; as fine as
// the file system keeps it). A weight-less proxy (write.hpp,
// pack_options::reference) records its source's stamp so that putting the
// weights back can refuse a source that changed since.
struct file_stamp {
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    bool operator==(const file_stamp& o) const noexcept { return size == o.size && mtime_ns == o.mtime_ns; }
    bool operator!=(const file_stamp& o) const noexcept { return !(*this == o); }
};

// The stamp of the file at `path` (followed through symlinks, UTF-8 on
// Windows). Errors: invalid_argument (null or empty path), is_directory,
// io_stat_failed with the system's code (missing, ...). O(1): one stat.
result<file_stamp> stamp_file(const char* path) noexcept;

// A file open for reading by descriptor, for sinks that copy between files
// (write_sink::copy; pack_options::source_fd). Move-only; closes on
// destruction.
class read_descriptor {
public:
    read_descriptor() noexcept = default;
    read_descriptor(const read_descriptor&) = delete;
    read_descriptor& operator=(const read_descriptor&) = delete;
    read_descriptor(read_descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    read_descriptor& operator=(read_descriptor&& other) noexcept;
    ~read_descriptor();
    // Errors: invalid_argument (null path), io_open_failed with errno.
    static result<read_descriptor> open(const char* path) noexcept;
    int fd() const noexcept { return fd_; }
    const int* get() const noexcept { return fd_ >= 0 ? &fd_ : nullptr; }

private:
    int fd_ = -1;
};

// The source of a file whose bytes arrive on demand (mapped_file::supplied):
// a remote file, or any store read by ranges. `fetch` makes the bytes
// [offset, offset + length) of the file's memory hold the file's content
// (it may fetch more), returning 0 or an error: it is called before any of
// them is read, by ensure(), read_at(), model_file's metadata walk and its
// tensor(). Reading bytes not fetched is a bug of the caller; the remote
// reader keeps such pages inaccessible where it can, so that the bug is a
// fault rather than zeros. `release` is called once with the memory when the
// file is destroyed (it may free the supplier itself). Must outlive the file.
struct file_supplier {
    error (*fetch)(void* user_data, std::uint64_t offset, std::uint64_t length) = nullptr;
    void (*release)(void* user_data, const void* data, std::uint64_t size) = nullptr;
    void* user_data = nullptr;
};

// The bytes of one whole file, and the ownership of whatever holds them (a
// mapping, a heap copy, a callback's buffer, or nothing for borrowed memory).
// Move-only RAII; hold it by value (40 bytes on 64-bit hosts; the object
// itself needs no allocation, the read() fallback allocates the file's size
// from options::memory).
// Never throws.
class mapped_file {
public:
    enum class storage : std::uint8_t {
        none = 0,   // default-constructed or moved-from: bytes() is empty
        mapped,     // mmap / MapViewOfFile, unmapped on destruction
        buffer,     // a heap copy made with read(), freed on destruction
        borrowed,   // caller memory, never freed
        callback,   // from file_callbacks, handed to release() on destruction
        supplied,   // from a file_supplier, read only after ensure(), released through it
    };

    mapped_file() noexcept = default;
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;
    mapped_file(mapped_file&& other) noexcept;
    mapped_file& operator=(mapped_file&& other) noexcept;
    ~mapped_file();

    // Opens a regular file by path (UTF-8 on Windows). Errors: file_empty for
    // size 0, is_directory, not_regular_file (devices, FIFOs, sockets: checked
    // with stat before open, and opened non-blocking), file_too_large when the
    // size exceeds SIZE_MAX (32-bit hosts: > 4 GiB), invalid_argument for a
    // null path, out_of_memory, and the io_error group with the system's code
    // in sys_errno: io_stat_failed (missing, ...), io_open_failed
    // (unreadable, ...), io_map_failed (open_mode::map), io_read_failed.
    // Of the options it reads file_mode, file_hint and file_copy_below.
    static result<mapped_file> open(const char* path, const options& opts = {}) noexcept;

    // Borrows [data, data + size): nothing is copied, nothing is freed. The
    // caller's memory must outlive this object and every view made over it.
    static mapped_file from_memory(const void* data, std::size_t size) noexcept;

    // Asks the callbacks for the whole file at `path` (passed through
    // unchanged), or for a file supplied on demand when they have `supply`.
    // Errors: invalid_argument (no map/read_whole/supply, null path),
    // callback_failed (group io_error; the callback's code in sys_errno),
    // file_empty (size 0, release is called), file_too_large.
    static result<mapped_file> from_callbacks(const char* path, const file_callbacks& callbacks) noexcept;

    // The file of `size` bytes whose memory is [data, data + size) and whose
    // content `supplier` puts there on demand (nothing is fetched here).
    // The file owns the memory from here on: it goes back through
    // supplier->release. Errors: invalid_argument (null data or supplier,
    // a supplier without fetch; release is not called), file_empty and
    // file_too_large (over SIZE_MAX: 32-bit hosts), released.
    static result<mapped_file> supplied(const char* data, std::uint64_t size, const file_supplier* supplier) noexcept;

    // Makes bytes [offset, offset + length) readable (length 0: to the
    // end): a supplied file fetches those it lacks; other storage is
    // readable already (ok). Errors: invalid_argument when the range is not
    // inside the file; the supplier's error.
    error ensure(std::uint64_t offset, std::uint64_t length) const noexcept;
    // Whether bytes must be ensured before they are read.
    bool on_demand() const noexcept { return kind_ == storage::supplied; }
    // The supplier of a supplied file (null for other storage): its owner
    // finds its own state through it (onnxview/remote/remote_file.hpp).
    const file_supplier* supplier() const noexcept {
        return kind_ == storage::supplied ? static_cast<const file_supplier*>(give_back_user_) : nullptr;
    }

    const char* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    std::string_view bytes() const noexcept { return {data_, size_}; }
    storage kind() const noexcept { return kind_; }
    // Whether [data, data + size) lies within bytes().
    bool holds(const char* data, std::size_t size) const noexcept {
        const auto at = reinterpret_cast<std::uintptr_t>(data), begin = reinterpret_cast<std::uintptr_t>(data_);
        return at >= begin && size <= size_ && at - begin <= size_ - size;
    }

    // Passes an access hint for [offset, offset + length) (length 0: to the
    // end) to the system. Only mapped storage is affected; elsewhere it is a
    // no-op that returns ok. Errors: invalid_argument when offset is past the
    // end; io_error (errno in sys_errno) when madvise refuses.
    error advise(access_hint hint, std::uint64_t offset = 0, std::uint64_t length = 0) const noexcept;
    // Whether the bytes are in memory, so that reading them costs no disk
    // read: always for storage other than a mapping; for a mapping, when
    // each of `sample_pages` pages spread evenly over it (the first and the
    // last among them) is resident (mincore, one call per page: cheap at
    // any file size). Linux reports the page cache only for files the
    // caller owns or may write, and otherwise only pages already mapped:
    // such files, and every mapping on Windows, read as not resident. A
    // hint, for choosing how to read: pages may come and go at any time.
    bool resident(std::uint32_t sample_pages = 16) const noexcept;

    // Copies bytes [offset, offset + size) into `out`. A mapped file opened
    // with options::keep_descriptor reads them with pread from its
    // descriptor: for a file in the page cache that is one copy, where
    // reading through the mapping makes the system map every page first
    // (5x the time of the copy for a 1.5 GB file on a 2-core VM; docs/diff.md);
    // it also maps nothing, and a file truncated meanwhile gives
    // io_read_failed instead of SIGBUS. A supplied file ensures the range
    // first. Other files copy from bytes().
    // Errors: invalid_argument when the range is not inside the file,
    // io_read_failed with the system's code, a supplier's error.
    error read_at(std::uint64_t offset, void* out, std::size_t size) const noexcept;
    // Whether read_at reads from a descriptor (POSIX only).
    bool keeps_descriptor() const noexcept { return descriptor_ >= 0; }

private:
    friend struct detail::file_access;
    void reset() noexcept;

    // How the bytes are given back: for storage::callback the callbacks'
    // release, for storage::buffer the deallocate of options::memory (null:
    // free), each with give_back_user_; for storage::supplied
    // give_back_user_ is the file_supplier.
    union give_back_fn {
        void (*release)(void* user_data, const void* data, std::uint64_t size);
        void (*deallocate)(void* user_data, void* ptr, std::size_t size, std::size_t alignment);
    };

    const char* data_ = nullptr;
    std::size_t size_ = 0;
    give_back_fn give_back_ = {nullptr};
    void* give_back_user_ = nullptr;
    storage kind_ = storage::none;
    int descriptor_ = -1;  // kept open for read_at (options::keep_descriptor), closed by reset()
};

// Gives back the pages of payload bytes a reader is done with, so that its
// resident set stays small whatever the model's size: inside `model`'s
// read-only mapping dropped from the mapping (MADV_DONTNEED; the page cache
// keeps them), the pages wholly inside the range only, so that the
// metadata around a payload stays; other memory (external files, heap
// copies) through release_pages, which never discards.
void release_payload(const mapped_file& model, const char* data, std::size_t size) noexcept;
static_assert(sizeof(void*) != 8 || sizeof(mapped_file) <= 40, "a file handle is four words, its kind and a descriptor");

// Private copies of a mapping's pages, made in place: copy() gives the
// whole pages around a range private copies of the same bytes, so that
// reading them later maps no page of the page cache. Why: a read fault
// maps every page of the cached folio around the byte read (up to 2 MiB on
// Linux 6.18), so reading the header of each tensor of a weights file whose
// pages are cached maps all of it; a copy costs one page. The bytes never
// change: dropping a copy (access_hint::dontneed) maps the file's page
// again. While this object lives the mapping is writable (a write fault
// copies the one page it hits; the system may count the whole mapping
// against its commit limit); its destructor makes it read-only again. Make
// one, copy, and let it go before the file is used elsewhere. Linux 5.14+
// (MADV_POPULATE_WRITE); elsewhere, and for storage other than a mapping,
// every call is a no-op that returns ok. Borrows the file, which must
// outlive it.
class page_copies {
public:
    explicit page_copies(const mapped_file& file) noexcept;
    ~page_copies();
    page_copies(const page_copies&) = delete;
    page_copies& operator=(const page_copies&) = delete;

    // Why no copy can be made: io_error (errno in sys_errno) when the system
    // refused to make the mapping writable (a commit limit, too many map areas).
    error err() const noexcept { return err_; }
    // Copies the pages around [offset, offset + length) (length 0: to the
    // end). Errors: err(); invalid_argument when offset is past the end;
    // io_error (errno in sys_errno) when the system refuses (a kernel before
    // 5.14, no memory).
    error copy(std::uint64_t offset, std::uint64_t length) noexcept;

private:
    const mapped_file* file_;
    error err_;
};

// A mapped_file with shared ownership: copies share one heap block holding the
// file and an atomic count; the last copy destroys the file. Use it when a
// model handle (or several threads) must keep the bytes alive while views
// exist. Costs one allocation in make(); copies cost an atomic increment.
class shared_file {
public:
    shared_file() noexcept = default;
    shared_file(const shared_file& other) noexcept;
    shared_file& operator=(const shared_file& other) noexcept;
    shared_file(shared_file&& other) noexcept : block_(other.block_) { other.block_ = nullptr; }
    shared_file& operator=(shared_file&& other) noexcept;
    ~shared_file();

    // Takes ownership of `file`, in a block from opts.memory. Error:
    // out_of_memory (file is then released).
    static result<shared_file> make(mapped_file&& file, const options& opts = {}) noexcept;

    explicit operator bool() const noexcept { return block_ != nullptr; }
    // Null for an empty shared_file.
    const mapped_file* get() const noexcept;
    std::string_view bytes() const noexcept;
    // Number of shared_file copies of this block (0 when empty).
    std::uint32_t use_count() const noexcept;

private:
    struct block;
    void drop() noexcept;
    block* block_ = nullptr;
};

}  // namespace onnxview

#endif  // ONNXVIEW_FILE_HPP
