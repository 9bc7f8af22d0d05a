// mapped_file and shared_file: paths, memory, callbacks, hints, errors.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>

#include "onnxview/file.hpp"
#include "counting_allocator.hpp"
#include "tmpdir.hpp"

using onnxview::access_hint;
using onnxview::errc;
using onnxview::file_callbacks;
using onnxview::mapped_file;
using onnxview::open_mode;
using onnxview::options;
using onnxview::shared_file;
using onnxview_test::pattern;
using onnxview_test::tmpdir;
using onnxview_test::write_file;

TEST_CASE("mapped_file: maps a file and reads it", "[io][file]") {
    tmpdir dir;
    const std::string bytes = pattern(100000);
    REQUIRE(write_file(dir / "m.onnx", bytes));
    auto f = mapped_file::open((dir / "m.onnx").c_str());
    REQUIRE(f.ok());
    CHECK(f->kind() == mapped_file::storage::mapped);
    CHECK(f->size() == bytes.size());
    CHECK(f->bytes() == bytes);
    CHECK(f->advise(access_hint::sequential).ok());
    CHECK(f->advise(access_hint::random, 5000, 10).ok());
    CHECK(f->advise(access_hint::willneed, 4096).ok());
    CHECK(f->advise(access_hint::dontneed).ok());
    CHECK(f->bytes() == bytes);  // dropped pages are read back from the file
    CHECK(f->advise(access_hint::normal, bytes.size() + 1).code == errc::invalid_argument);
}

TEST_CASE("mapped_file: resident() samples the page cache", "[io][file]") {
    // A hole has no page in memory until it is read: a file of holes starts
    // out not resident, and reading it through the mapping brings it in.
    tmpdir dir;
    const std::string path = dir / "holes.onnx";
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, 1 << 20) == 0);
    ::close(fd);
    auto f = mapped_file::open(path.c_str());
    REQUIRE(f.ok());
    REQUIRE(f->kind() == mapped_file::storage::mapped);
    CHECK_FALSE(f->resident());
    unsigned sum = 0;
    for (std::size_t i = 0; i < f->size(); i += 4096) sum += static_cast<unsigned char>(f->data()[i]);
    CHECK(sum == 0);
    CHECK(f->resident());
    CHECK(f->resident(1));
    CHECK(f->resident(100000));  // more samples than pages: each page once
    // Bytes in memory are resident by definition.
    const std::string bytes = pattern(100);
    CHECK(mapped_file::from_memory(bytes.data(), bytes.size()).resident());
    CHECK(mapped_file().resident());
}

TEST_CASE("page_copies: the bytes stay, even when the copies are dropped", "[io][file]") {
    tmpdir dir;
    const std::string bytes = pattern(100000);
    REQUIRE(write_file(dir / "c.onnx", bytes));
    auto f = mapped_file::open((dir / "c.onnx").c_str());
    REQUIRE(f.ok());
    {
        onnxview::page_copies copies(*f);
        REQUIRE(copies.err().ok());
        CHECK(copies.copy(5000, 10).ok());        // the page around it
        CHECK(copies.copy(20000, 30000).ok());    // unaligned on both ends
        CHECK(copies.copy(90000, 0).ok());        // to the end
        CHECK(copies.copy(bytes.size(), 0).ok());  // nothing
        CHECK(copies.copy(bytes.size() + 1, 1).code == errc::invalid_argument);
    }
    CHECK(f->bytes() == bytes);
    CHECK(f->advise(access_hint::dontneed).ok());  // the file's pages come back
    CHECK(f->bytes() == bytes);
    const mapped_file borrowed = mapped_file::from_memory(bytes.data(), bytes.size());
    onnxview::page_copies none(borrowed);
    CHECK(none.copy(0, 10).ok());  // a no-op
}

TEST_CASE("mapped_file: heap copies and shared blocks come from options::memory", "[io][file][memory]") {
    tmpdir dir;
    const std::string bytes = pattern(5000);
    REQUIRE(write_file(dir / "m.onnx", bytes));
    onnxview_test::counting_allocator memory;
    options o;
    o.file_mode = open_mode::read;
    o.memory = memory.hooks();
    {
        auto f = mapped_file::open((dir / "m.onnx").c_str(), o);
        REQUIRE(f.ok());
        CHECK(f->bytes() == bytes);
        CHECK(memory.requests() == 1);
        CHECK(memory.outstanding() == 1);
        auto shared = onnxview::shared_file::make(std::move(f.value()), o);
        REQUIRE(shared.ok());
        const onnxview::shared_file copy = shared.value();
        CHECK(copy.bytes() == bytes);
        CHECK(memory.outstanding() == 2);
    }
    CHECK(memory.outstanding() == 0);  // given back by the last owner
    CHECK(memory.consistent());

    memory.fail_from(memory.requests());
    auto refused = mapped_file::open((dir / "m.onnx").c_str(), o);
    CHECK(refused.err().code == errc::out_of_memory);
    o.file_mode = open_mode::map;  // a mapping needs no heap
    CHECK(mapped_file::open((dir / "m.onnx").c_str(), o).ok());
    o.memory.deallocate = nullptr;  // only both hooks count: malloc and free again
    o.file_mode = open_mode::read;
    CHECK(mapped_file::open((dir / "m.onnx").c_str(), o).ok());
    CHECK(memory.outstanding() == 0);
    CHECK(memory.consistent());
}

TEST_CASE("mapped_file: read mode and copy_below give a private heap copy", "[io][file]") {
    tmpdir dir;
    const std::string bytes = pattern(5000);
    REQUIRE(write_file(dir / "m.onnx", bytes));
    options o;
    o.file_mode = open_mode::read;
    auto f = mapped_file::open((dir / "m.onnx").c_str(), o);
    REQUIRE(f.ok());
    CHECK(f->kind() == mapped_file::storage::buffer);
    CHECK(f->bytes() == bytes);
    CHECK(f->advise(access_hint::sequential).ok());  // no-op on a copy

    options small;
    small.file_copy_below = 5001;
    auto g = mapped_file::open((dir / "m.onnx").c_str(), small);
    REQUIRE(g.ok());
    CHECK(g->kind() == mapped_file::storage::buffer);
    small.file_copy_below = 5000;  // not below: mapped
    auto h = mapped_file::open((dir / "m.onnx").c_str(), small);
    REQUIRE(h.ok());
    CHECK(h->kind() == mapped_file::storage::mapped);

    // A copy does not see later changes (or truncation) of the file.
    REQUIRE(::truncate((dir / "m.onnx").c_str(), 10) == 0);
    CHECK(f->bytes() == bytes);
}

TEST_CASE("mapped_file: every hint is accepted at open", "[io][file]") {
    tmpdir dir;
    REQUIRE(write_file(dir / "m", pattern(9000)));
    for (auto hint : {access_hint::normal, access_hint::sequential, access_hint::random,
                      access_hint::willneed, access_hint::dontneed}) {
        for (auto mode : {open_mode::automatic, open_mode::map, open_mode::read}) {
            options o;
            o.file_hint = hint;
            o.file_mode = mode;
            auto f = mapped_file::open((dir / "m").c_str(), o);
            REQUIRE(f.ok());
            CHECK(f->bytes() == pattern(9000));
        }
    }
}

TEST_CASE("mapped_file: empty file, directory, missing file, null path", "[io][file]") {
    tmpdir dir;
    REQUIRE(write_file(dir / "empty", ""));
    CHECK(mapped_file::open((dir / "empty").c_str()).err().code == errc::file_empty);
    options o;
    o.file_mode = open_mode::read;
    CHECK(mapped_file::open((dir / "empty").c_str(), o).err().code == errc::file_empty);

    CHECK(mapped_file::open(dir.path().c_str()).err().code == errc::is_directory);

    auto missing = mapped_file::open((dir / "nope.onnx").c_str());
    CHECK(onnxview::errc_group(missing.err().code) == errc::io_error);
    CHECK(missing.err().sys_errno == ENOENT);
    CHECK(missing.err().code == errc::io_stat_failed);

    auto through_file = mapped_file::open((dir / "empty/x").c_str());
    CHECK(onnxview::errc_group(through_file.err().code) == errc::io_error);
    CHECK(through_file.err().sys_errno == ENOTDIR);

    CHECK(mapped_file::open(nullptr).err().code == errc::invalid_argument);
    CHECK(mapped_file::open("").err().code == errc::invalid_argument);
}

TEST_CASE("mapped_file: unreadable file keeps errno", "[io][file]") {
    if (::geteuid() == 0) {
        WARN("running as root: permission bits do not stop reads; skipped");
        return;
    }
    tmpdir dir;
    REQUIRE(write_file(dir / "secret", "x"));
    REQUIRE(::chmod((dir / "secret").c_str(), 0) == 0);
    const onnxview::error e = mapped_file::open((dir / "secret").c_str()).err();
    CHECK(onnxview::errc_group(e.code) == errc::io_error);
    CHECK(e.sys_errno == EACCES);
    CHECK(e.code == errc::io_open_failed);
}

TEST_CASE("mapped_file: FIFOs and devices are refused without blocking", "[io][file]") {
    tmpdir dir;
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    // Opening a FIFO for reading would block forever with no writer.
    CHECK(mapped_file::open((dir / "fifo").c_str()).err().code == errc::not_regular_file);
    CHECK(mapped_file::open("/dev/zero").err().code == errc::not_regular_file);
    CHECK(mapped_file::open("/dev/null").err().code == errc::not_regular_file);
}

TEST_CASE("mapped_file: symlinks to files are followed", "[io][file]") {
    tmpdir dir;
    REQUIRE(write_file(dir / "real", "hello"));
    REQUIRE(::symlink("real", (dir / "link").c_str()) == 0);
    auto f = mapped_file::open((dir / "link").c_str());
    REQUIRE(f.ok());
    CHECK(f->bytes() == "hello");
}

TEST_CASE("mapped_file: borrowed memory is neither copied nor freed", "[io][file]") {
    static const char buf[] = "\x08\x07";
    mapped_file m = mapped_file::from_memory(buf, 2);
    CHECK(m.kind() == mapped_file::storage::borrowed);
    CHECK(m.data() == buf);
    CHECK(m.size() == 2);
    mapped_file n = mapped_file::from_memory(nullptr, 5);
    CHECK(n.empty());
    CHECK(n.bytes().empty());
}

TEST_CASE("mapped_file: moves keep the bytes where they are", "[io][file]") {
    tmpdir dir;
    REQUIRE(write_file(dir / "m", pattern(10000)));
    auto f = mapped_file::open((dir / "m").c_str());
    REQUIRE(f.ok());
    const char* p = f->data();
    mapped_file a = std::move(f.value());
    CHECK(a.data() == p);
    CHECK(f->kind() == mapped_file::storage::none);
    CHECK(f->bytes().empty());
    mapped_file b;
    b = std::move(a);
    CHECK(b.data() == p);
    CHECK(a.data() == nullptr);
    mapped_file& same = b;  // through a reference: the self-move is the point here
    b = std::move(same);    // self-move leaves it intact
    CHECK(b.data() == p);
    CHECK(b.bytes() == pattern(10000));
}

namespace {
struct vfs {
    std::string content = "virtual bytes";
    int maps = 0, reads = 0, releases = 0;
    int map_result = 0, read_result = 0;
    std::string last_path;
    const void* released = nullptr;
    std::uint64_t released_size = 0;
    bool give_empty = false;
};

int vfs_map(void* user, const char* path, const void** data, std::uint64_t* size) {
    auto* v = static_cast<vfs*>(user);
    ++v->maps;
    v->last_path = path;
    if (v->map_result != 0) return v->map_result;
    *data = v->content.data();
    *size = v->give_empty ? 0 : v->content.size();
    return 0;
}

int vfs_read(void* user, const char* path, const void** data, std::uint64_t* size) {
    auto* v = static_cast<vfs*>(user);
    ++v->reads;
    v->last_path = path;
    if (v->read_result != 0) return v->read_result;
    char* copy = new char[v->content.size()];
    std::memcpy(copy, v->content.data(), v->content.size());
    *data = copy;
    *size = v->give_empty ? 0 : v->content.size();
    return 0;
}

void vfs_release(void* user, const void* data, std::uint64_t size) {
    auto* v = static_cast<vfs*>(user);
    ++v->releases;
    v->released = data;
    v->released_size = size;
    if (data != v->content.data()) delete[] static_cast<const char*>(data);
}
}  // namespace

TEST_CASE("mapped_file: callbacks, map preferred, read_whole as fallback", "[io][file]") {
    vfs v;
    file_callbacks cb;
    cb.map = vfs_map;
    cb.read_whole = vfs_read;
    cb.release = vfs_release;
    cb.user_data = &v;
    {
        auto f = mapped_file::from_callbacks("pak://model.onnx", cb);
        REQUIRE(f.ok());
        CHECK(f->kind() == mapped_file::storage::callback);
        CHECK(f->bytes() == "virtual bytes");
        CHECK(f->data() == v.content.data());
        CHECK(v.last_path == "pak://model.onnx");
        CHECK(v.maps == 1);
        CHECK(v.reads == 0);
        CHECK(v.releases == 0);
    }
    CHECK(v.releases == 1);
    CHECK(v.released == v.content.data());
    CHECK(v.released_size == v.content.size());

    v.map_result = ENOTSUP;  // map refuses: read_whole gives a copy
    {
        auto f = mapped_file::from_callbacks("x", cb);
        REQUIRE(f.ok());
        CHECK(f->data() != v.content.data());
        CHECK(f->bytes() == "virtual bytes");
        CHECK(v.reads == 1);
    }
    CHECK(v.releases == 2);

    v.read_result = ENOENT;  // both fail: io_error with the callback's code
    const onnxview::error e = mapped_file::from_callbacks("x", cb).err();
    CHECK(onnxview::errc_group(e.code) == errc::io_error);
    CHECK(e.sys_errno == ENOENT);
    CHECK(e.code == errc::callback_failed);
    CHECK(v.releases == 2);
}

TEST_CASE("mapped_file: callbacks with only read_whole, empty files, bad arguments", "[io][file]") {
    vfs v;
    file_callbacks cb;
    cb.read_whole = vfs_read;
    cb.release = vfs_release;
    cb.user_data = &v;
    {
        auto f = mapped_file::from_callbacks("x", cb);
        REQUIRE(f.ok());
        CHECK(f->bytes() == "virtual bytes");
    }
    CHECK(v.releases == 1);

    v.give_empty = true;  // size 0: file_empty, and the buffer is still released
    CHECK(mapped_file::from_callbacks("x", cb).err().code == errc::file_empty);
    CHECK(v.releases == 2);

    file_callbacks none;
    CHECK(mapped_file::from_callbacks("x", none).err().code == errc::invalid_argument);
    CHECK(mapped_file::from_callbacks(nullptr, cb).err().code == errc::invalid_argument);
}

TEST_CASE("shared_file: the last copy releases the file", "[io][file]") {
    vfs v;
    file_callbacks cb;
    cb.map = vfs_map;
    cb.release = vfs_release;
    cb.user_data = &v;
    auto f = mapped_file::from_callbacks("x", cb);
    REQUIRE(f.ok());
    auto s = shared_file::make(std::move(f.value()));
    REQUIRE(s.ok());
    CHECK(s->use_count() == 1);
    {
        shared_file a = s.value();
        shared_file b;
        b = a;
        CHECK(s->use_count() == 3);
        CHECK(b.bytes() == "virtual bytes");
        shared_file c = std::move(b);
        CHECK(!b);
        CHECK(s->use_count() == 3);
        const shared_file& same = c;
        c = same;  // self-assignment keeps the count
        CHECK(s->use_count() == 3);
    }
    CHECK(s->use_count() == 1);
    CHECK(v.releases == 0);
    s.value() = shared_file();
    CHECK(v.releases == 1);

    shared_file empty;
    CHECK(empty.get() == nullptr);
    CHECK(empty.bytes().empty());
    CHECK(empty.use_count() == 0);
}

namespace {
long vm_rss_kib() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, 6, "VmRSS:") == 0) return std::stol(line.substr(6));
    }
    return -1;
}
}  // namespace

TEST_CASE("mapped_file: a sparse file over 4 GiB maps with small RSS", "[io][file][large]") {
    if (sizeof(std::size_t) < 8) {
        WARN("32-bit host: files over 4 GiB give file_too_large; skipped");
        return;
    }
    tmpdir dir;
    const std::string path = dir / "big";
    const std::uint64_t size = (std::uint64_t(5) << 30) + 12345;  // 5 GiB + a bit
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    const bool grown = ::ftruncate(fd, static_cast<off_t>(size)) == 0;
    const char tail[] = "TAIL";
    const bool written = ::pwrite(fd, tail, 4, static_cast<off_t>(size - 4)) == 4;
    ::close(fd);
    if (!grown || !written) {
        WARN("file system refused a 5 GiB sparse file; skipped");
        return;
    }
    const long before = vm_rss_kib();
    {
        options o;
        o.file_mode = open_mode::map;
        o.file_hint = access_hint::random;
        auto f = mapped_file::open(path.c_str(), o);
        REQUIRE(f.ok());
        CHECK(f->size() == size);
        CHECK(std::string(f->data() + size - 4, 4) == "TAIL");
        CHECK(f->data()[size - 5] == '\0');
        CHECK(f->data()[(std::uint64_t(4) << 30) + 1] == '\0');  // past 4 GiB
        const long after = vm_rss_kib();
        if (before > 0 && after > 0) {
            INFO("VmRSS before " << before << " KiB, after " << after << " KiB");
            CHECK(after - before < 16 * 1024);  // a few pages, not gigabytes
        }
    }
}

TEST_CASE("release_payload gives a mapping's pages back, release_pages never discards", "[io][file]") {
    tmpdir dir;
    const std::string path = dir / "pages";
    const std::string bytes = pattern(std::size_t(16) << 20);
    REQUIRE(write_file(path, bytes));
    auto f = mapped_file::open(path.c_str(), options());
    REQUIRE(f.ok());
    REQUIRE(f->kind() == mapped_file::storage::mapped);
    const char* data = f->data();
    const std::size_t size = f->size();
    const long before = vm_rss_kib();
    CHECK(std::string(data, size) == bytes);  // every page mapped
    const long read = vm_rss_kib();
    onnxview::release_payload(*f, data, size);
    const long released = vm_rss_kib();
    if (before > 0) {
        INFO("VmRSS before " << before << " KiB, read " << read << " KiB, released " << released << " KiB");
        CHECK(read - released >= 15 * 1024);
    }
    CHECK(std::string(data, size) == bytes);  // read back from the page cache
    // Memory outside the mapping (heap copies, external files) goes to
    // release_pages, which keeps its content.
    std::string heap = bytes.substr(0, 3 << 20);
    onnxview::release_pages(heap.data(), heap.size());
    onnxview::release_payload(*f, heap.data(), heap.size());
    onnxview::release_pages(nullptr, 0);
    CHECK(heap == bytes.substr(0, 3 << 20));
}

TEST_CASE("mapped_file: a mapped file truncated under it raises SIGBUS (as documented)", "[io][file]") {
    tmpdir dir;
    const std::string path = dir / "shrinks";
    REQUIRE(write_file(path, pattern(3 * 65536)));
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        options o;
        o.file_mode = open_mode::map;
        auto f = mapped_file::open(path.c_str(), o);
        if (!f.ok()) ::_exit(2);
        if (::truncate(path.c_str(), 100) != 0) ::_exit(3);
        std::signal(SIGBUS, SIG_DFL);  // sanitizers install their own handler
        volatile char c = f->data()[2 * 65536];  // past the new end
        (void)c;
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGBUS);
}

namespace {

std::size_t open_descriptors() {
    std::size_t n = 0;
    for (int fd = 0; fd < 4096; ++fd) n += ::fcntl(fd, F_GETFD) != -1;
    return n;
}

}  // namespace

TEST_CASE("mapped_file::read_at: a kept descriptor reads with pread and maps nothing", "[io][file]") {
    tmpdir dir;
    const std::string path = dir / "payload";
    const std::string bytes = pattern(std::size_t(16) << 20);
    REQUIRE(write_file(path, bytes));
    const std::size_t descriptors = open_descriptors();
    {
        options o;
        o.keep_descriptor = true;
        auto f = mapped_file::open(path.c_str(), o);
        REQUIRE(f.ok());
        REQUIRE(f->kind() == mapped_file::storage::mapped);
        CHECK(f->keeps_descriptor());
        CHECK(open_descriptors() == descriptors + 1);
        std::string piece(std::size_t(1) << 20, '\0');
        const long before = vm_rss_kib();
        bool equal = true;
        for (std::size_t at = 0; at < bytes.size(); at += piece.size()) {
            REQUIRE(f->read_at(at, &piece[0], piece.size()).ok());
            equal = equal && std::memcmp(piece.data(), bytes.data() + at, piece.size()) == 0;
        }
        CHECK(equal);
        const long after = vm_rss_kib();
        if (before > 0) {
            INFO("VmRSS before " << before << " KiB, after reading 16 MiB " << after << " KiB");
            CHECK(after - before < 8 * 1024);  // through the mapping: 16 MiB
        }
        // Ranges: inside, up to the end, empty at the end; nothing past it.
        char small[8];
        CHECK(f->read_at(bytes.size() - 8, small, 8).ok());
        CHECK(std::string(small, 8) == bytes.substr(bytes.size() - 8));
        CHECK(f->read_at(bytes.size(), small, 0).ok());
        CHECK(f->read_at(bytes.size() - 7, small, 8).code == errc::invalid_argument);
        CHECK(f->read_at(bytes.size() + 1, small, 0).code == errc::invalid_argument);
        CHECK(f->read_at(0, nullptr, 1).code == errc::invalid_argument);
        // Moves carry the descriptor.
        mapped_file moved = std::move(f.value());
        CHECK(moved.keeps_descriptor());
        CHECK_FALSE(f->keeps_descriptor());
        CHECK(open_descriptors() == descriptors + 1);
        // A file truncated under it: an error where the mapping would raise SIGBUS.
        REQUIRE(::truncate(path.c_str(), 100) == 0);
        const onnxview::error e = moved.read_at(65536, small, 8);
        CHECK(e.code == errc::io_read_failed);
        CHECK(moved.read_at(0, small, 8).ok());
        CHECK(std::string(small, 8) == bytes.substr(0, 8));
    }
    CHECK(open_descriptors() == descriptors);  // closed with the file
}

TEST_CASE("mapped_file::read_at without a descriptor copies the bytes; holds()", "[io][file]") {
    tmpdir dir;
    const std::string path = dir / "plain";
    const std::string bytes = pattern(100000);
    REQUIRE(write_file(path, bytes));
    auto mapped = mapped_file::open(path.c_str());
    REQUIRE(mapped.ok());
    CHECK_FALSE(mapped->keeps_descriptor());
    options copy;
    copy.keep_descriptor = true;  // only mappings keep one
    copy.file_mode = open_mode::read;
    auto heap = mapped_file::open(path.c_str(), copy);
    REQUIRE(heap.ok());
    CHECK(heap->kind() == mapped_file::storage::buffer);
    CHECK_FALSE(heap->keeps_descriptor());
    const mapped_file borrowed = mapped_file::from_memory(bytes.data(), bytes.size());
    for (const mapped_file* f : {&*mapped, &*heap, &borrowed}) {
        char out[100];
        REQUIRE(f->read_at(99000, out, sizeof out).ok());
        CHECK(std::string(out, sizeof out) == bytes.substr(99000, 100));
        CHECK(f->read_at(99950, out, sizeof out).code == errc::invalid_argument);
        CHECK(f->holds(f->data(), f->size()));
        CHECK(f->holds(f->data() + 10, 5));
        CHECK_FALSE(f->holds(f->data() + 10, f->size()));
        CHECK_FALSE(f->holds(f->data() - 1, 1));
        CHECK_FALSE(f->holds(bytes.data() == f->data() ? path.data() : bytes.data(), 1));
    }
    CHECK(mapped_file().read_at(0, nullptr, 0).ok());
}

namespace {

// Whether the page holding `p` is mapped in this process (/proc/self/pagemap,
// bit 63); -1 where the kernel does not say.
int page_present(const void* p) {
    const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    const long page = ::sysconf(_SC_PAGESIZE);
    std::uint64_t entry = 0;
    const off_t at = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(p) / static_cast<std::uintptr_t>(page) * 8);
    const bool ok = ::pread(fd, &entry, sizeof entry, at) == static_cast<ssize_t>(sizeof entry);
    ::close(fd);
    return ok ? static_cast<int>(entry >> 63) : -1;
}

}  // namespace

TEST_CASE("release_payload keeps the partial pages at the range's ends (they hold metadata)", "[io][file]") {
    tmpdir dir;
    const std::string path = dir / "ends";
    const std::string bytes = pattern(std::size_t(1) << 20);
    REQUIRE(write_file(path, bytes));
    auto f = mapped_file::open(path.c_str());
    REQUIRE(f.ok());
    REQUIRE(f->kind() == mapped_file::storage::mapped);
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const char* data = f->data();
    CHECK(std::string(data, f->size()) == bytes);  // every page mapped
    if (page_present(data) != 1) {
        WARN("/proc/self/pagemap does not show mapped pages here; skipped");
        return;
    }
    // A payload from the middle of page 0 to the middle of the last page.
    onnxview::release_payload(*f, data + page / 2, f->size() - page);
    CHECK(page_present(data) == 1);
    CHECK(page_present(data + page) == 0);
    CHECK(page_present(data + f->size() / 2) == 0);
    CHECK(page_present(data + f->size() - 2 * page) == 0);
    CHECK(page_present(data + f->size() - 1) == 1);
    // Up to the file's end, the last page goes too.
    onnxview::release_payload(*f, data + page / 2, f->size() - page / 2);
    CHECK(page_present(data + f->size() - 1) == 0);
    CHECK(page_present(data) == 1);
    CHECK(std::string(data, f->size()) == bytes);
}
