// mapped_file::supplied: a file whose bytes arrive on demand through a
// file_supplier (ensure, read_at, on_demand, supplier, the release callback).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "onnxview/file.hpp"
#include "tmpdir.hpp"

using onnxview::errc;
using onnxview::error;
using onnxview::file_supplier;
using onnxview::mapped_file;
using onnxview::shared_file;

namespace {

// A store read by ranges: `content` is the file, `memory` the file's memory
// (poisoned until fetched). Records every call.
struct store {
    struct range {
        std::uint64_t offset, length;
        bool operator==(const range& o) const { return offset == o.offset && length == o.length; }
    };
    std::string content;
    std::string memory;
    std::vector<range> fetches;
    error fail;  // returned by fetch when set (nothing is copied then)
    int releases = 0;
    int out_of_range = 0;  // fetches outside the file (a bug of mapped_file)
    const void* released = nullptr;
    std::uint64_t released_size = 0;
    file_supplier supplier;

    explicit store(std::string bytes) : content(std::move(bytes)), memory(content.size(), '\xAB') {
        supplier.fetch = fetch;
        supplier.release = release;
        supplier.user_data = this;
    }
    ~store() { CHECK(out_of_range == 0); }
    static error fetch(void* user, std::uint64_t offset, std::uint64_t length) {
        auto& s = *static_cast<store*>(user);
        s.fetches.push_back({offset, length});
        if (!s.fail.ok()) return s.fail;
        // Called under noexcept ensure(): no REQUIRE (it would throw) here.
        if (offset > s.content.size() || length > s.content.size() - offset) {
            ++s.out_of_range;
            return error(errc::invalid_argument);
        }
        std::memcpy(&s.memory[offset], s.content.data() + offset, length);
        return error();
    }
    static void release(void* user, const void* data, std::uint64_t size) {
        auto& s = *static_cast<store*>(user);
        ++s.releases;
        s.released = data;
        s.released_size = size;
    }
    mapped_file file() {
        auto f = mapped_file::supplied(memory.data(), memory.size(), &supplier);
        REQUIRE(f.ok());
        return std::move(f.value());
    }
};

using range = store::range;

}  // namespace

TEST_CASE("mapped_file::supplied: nothing is fetched until ensured", "[io][supplied]") {
    store s(onnxview_test::pattern(10000));
    {
        const mapped_file f = s.file();
        CHECK(f.kind() == mapped_file::storage::supplied);
        CHECK(f.on_demand());
        CHECK(f.supplier() == &s.supplier);
        CHECK(f.data() == s.memory.data());
        CHECK(f.size() == 10000);
        CHECK(f.bytes().size() == 10000);
        CHECK(f.holds(f.data() + 100, 10));
        CHECK(s.fetches.empty());
        CHECK(f.resident());  // not a mapping: in memory as far as the hint goes
        CHECK(f.advise(onnxview::access_hint::willneed).ok());  // a no-op
        CHECK(s.fetches.empty());
        CHECK(s.releases == 0);

        REQUIRE(f.ensure(100, 50).ok());
        REQUIRE(s.fetches.size() == 1);
        CHECK(s.fetches[0] == range{100, 50});
        CHECK(f.bytes().substr(100, 50) == s.content.substr(100, 50));
        CHECK(f.bytes()[99] == '\xAB');  // the supplier was asked for these only
        CHECK(f.bytes()[150] == '\xAB');
    }
    CHECK(s.releases == 1);
    CHECK(s.released == s.memory.data());
    CHECK(s.released_size == 10000);
}

TEST_CASE("mapped_file::supplied: argument errors", "[io][supplied]") {
    store s("abc");
    SECTION("null data, null supplier, a supplier without fetch: invalid_argument, release not called") {
        CHECK(mapped_file::supplied(nullptr, 3, &s.supplier).err().code == errc::invalid_argument);
        CHECK(mapped_file::supplied(nullptr, 0, &s.supplier).err().code == errc::invalid_argument);
        CHECK(mapped_file::supplied(s.memory.data(), 3, nullptr).err().code == errc::invalid_argument);
        file_supplier no_fetch = s.supplier;
        no_fetch.fetch = nullptr;
        CHECK(mapped_file::supplied(s.memory.data(), 3, &no_fetch).err().code == errc::invalid_argument);
        CHECK(s.releases == 0);
        CHECK(s.fetches.empty());
    }
    SECTION("size 0: file_empty, and the memory goes back through release") {
        const auto f = mapped_file::supplied(s.memory.data(), 0, &s.supplier);
        REQUIRE_FALSE(f.ok());
        CHECK(f.err().code == errc::file_empty);
        CHECK(s.releases == 1);
        CHECK(s.released == s.memory.data());
        CHECK(s.released_size == 0);
        CHECK(s.fetches.empty());
    }
    SECTION("a supplier without release is accepted; destruction calls nothing") {
        file_supplier no_release = s.supplier;
        no_release.release = nullptr;
        {
            auto f = mapped_file::supplied(s.memory.data(), 3, &no_release);
            REQUIRE(f.ok());
            REQUIRE(f->ensure(0, 0).ok());
            CHECK(f->bytes() == "abc");
        }
        CHECK(s.releases == 0);
        CHECK(mapped_file::supplied(s.memory.data(), 0, &no_release).err().code == errc::file_empty);
        CHECK(s.releases == 0);
    }
}

TEST_CASE("mapped_file::ensure: range checks, length 0 to the end", "[io][supplied]") {
    store s(onnxview_test::pattern(5000));
    const mapped_file f = s.file();
    SECTION("offset past the end") {
        CHECK(f.ensure(5001, 0).code == errc::invalid_argument);
        CHECK(f.ensure(5001, 1).code == errc::invalid_argument);
        CHECK(f.ensure(UINT64_MAX, 1).code == errc::invalid_argument);
        CHECK(s.fetches.empty());
    }
    SECTION("length past the end, overflowing offset + length included") {
        CHECK(f.ensure(0, 5001).code == errc::invalid_argument);
        CHECK(f.ensure(4999, 2).code == errc::invalid_argument);
        CHECK(f.ensure(1, UINT64_MAX).code == errc::invalid_argument);
        CHECK(f.ensure(4000, UINT64_MAX - 3000).code == errc::invalid_argument);
        CHECK(s.fetches.empty());
    }
    SECTION("length 0: to the end") {
        REQUIRE(f.ensure(1000, 0).ok());
        REQUIRE(s.fetches.size() == 1);
        CHECK(s.fetches[0] == range{1000, 4000});
        REQUIRE(f.ensure(0, 0).ok());
        REQUIRE(s.fetches.size() == 2);
        CHECK(s.fetches[1] == range{0, 5000});
        CHECK(f.bytes() == s.content);
    }
    SECTION("the whole file and its last byte are inside; at the end nothing is asked") {
        REQUIRE(f.ensure(0, 5000).ok());
        REQUIRE(f.ensure(4999, 1).ok());
        REQUIRE(f.ensure(5000, 0).ok());  // the empty range at the end
        REQUIRE(s.fetches.size() == 2);
        CHECK(s.fetches[0] == range{0, 5000});
        CHECK(s.fetches[1] == range{4999, 1});
    }
    SECTION("every call is passed on, held or not: the supplier keeps its own books") {
        REQUIRE(f.ensure(10, 10).ok());
        REQUIRE(f.ensure(10, 10).ok());
        CHECK(s.fetches.size() == 2);
    }
}

TEST_CASE("mapped_file::ensure passes the supplier's error through", "[io][supplied]") {
    store s(onnxview_test::pattern(5000));
    const mapped_file f = s.file();
    s.fail = error(errc::remote_failed, 1234, 503);
    const error e = f.ensure(100, 10);
    CHECK(e.code == errc::remote_failed);
    CHECK(e.offset == 1234);
    CHECK(e.sys_errno == 503);
    CHECK(onnxview::errc_group(e.code) == errc::io_error);
    REQUIRE(s.fetches.size() == 1);
    CHECK(s.fetches[0] == range{100, 10});
    s.fail = error(errc::remote_changed);
    CHECK(f.ensure(0, 0).code == errc::remote_changed);
    s.fail = error();
    CHECK(f.ensure(0, 0).ok());
}

TEST_CASE("mapped_file::read_at on a supplied file fetches before it copies", "[io][supplied]") {
    store s(onnxview_test::pattern(5000));
    const mapped_file f = s.file();
    char out[64];
    SECTION("the range is fetched, then copied") {
        REQUIRE(f.read_at(3000, out, sizeof out).ok());
        REQUIRE(s.fetches.size() == 1);
        CHECK(s.fetches[0] == range{3000, sizeof out});
        CHECK(std::string(out, sizeof out) == s.content.substr(3000, sizeof out));
        REQUIRE(f.read_at(4936, out, sizeof out).ok());  // the last 64 bytes
        CHECK(std::string(out, sizeof out) == s.content.substr(4936));
    }
    SECTION("the supplier's error is read_at's, and nothing is copied") {
        s.fail = error(errc::remote_failed, 0, 404);
        std::memset(out, 'z', sizeof out);
        const error e = f.read_at(100, out, sizeof out);
        CHECK(e.code == errc::remote_failed);
        CHECK(e.sys_errno == 404);
        CHECK(s.fetches.size() == 1);
        CHECK(std::string(out, sizeof out) == std::string(sizeof out, 'z'));
    }
    SECTION("bad ranges and empty reads ask nothing") {
        CHECK(f.read_at(4990, out, sizeof out).code == errc::invalid_argument);
        CHECK(f.read_at(5001, out, 0).code == errc::invalid_argument);
        CHECK(f.read_at(0, nullptr, 1).code == errc::invalid_argument);
        CHECK(f.read_at(100, out, 0).ok());
        CHECK(f.read_at(5000, nullptr, 0).ok());
        CHECK(s.fetches.empty());
    }
}

TEST_CASE("mapped_file::ensure on other storage: ok, nothing called", "[io][supplied]") {
    const std::string bytes = onnxview_test::pattern(3000);
    const mapped_file borrowed = mapped_file::from_memory(bytes.data(), bytes.size());
    CHECK_FALSE(borrowed.on_demand());
    CHECK(borrowed.supplier() == nullptr);
    CHECK(borrowed.ensure(0, 0).ok());
    CHECK(borrowed.ensure(100, 2900).ok());
    CHECK(borrowed.ensure(3000, 0).ok());
    CHECK(borrowed.ensure(3001, 0).code == errc::invalid_argument);  // the range is still checked
    CHECK(borrowed.ensure(0, 3001).code == errc::invalid_argument);

    onnxview_test::tmpdir dir;
    REQUIRE(onnxview_test::write_file(dir / "m", bytes));
    for (const onnxview::open_mode mode : {onnxview::open_mode::map, onnxview::open_mode::read}) {
        onnxview::options o;
        o.file_mode = mode;
        auto f = mapped_file::open((dir / "m").c_str(), o);
        REQUIRE(f.ok());
        CHECK_FALSE(f->on_demand());
        CHECK(f->supplier() == nullptr);
        CHECK(f->ensure(0, 0).ok());
        CHECK(f->ensure(10, 10).ok());
        CHECK(f->bytes() == bytes);
    }

    const mapped_file none;
    CHECK_FALSE(none.on_demand());
    CHECK(none.supplier() == nullptr);
    CHECK(none.ensure(0, 0).ok());
    CHECK(none.ensure(1, 0).code == errc::invalid_argument);
}

TEST_CASE("mapped_file::supplied: moves keep the supplier, release runs once", "[io][supplied]") {
    store s(onnxview_test::pattern(8000));
    {
        mapped_file a = s.file();
        mapped_file b(std::move(a));
        CHECK(a.kind() == mapped_file::storage::none);
        CHECK_FALSE(a.on_demand());
        CHECK(a.supplier() == nullptr);
        CHECK(a.ensure(0, 0).ok());  // the moved-from file is empty: nothing to fetch
        CHECK(b.on_demand());
        CHECK(b.supplier() == &s.supplier);
        CHECK(b.data() == s.memory.data());
        REQUIRE(b.ensure(7000, 100).ok());
        CHECK(s.fetches.size() == 1);

        mapped_file c;
        c = std::move(b);
        CHECK(c.supplier() == &s.supplier);
        CHECK(c.kind() == mapped_file::storage::supplied);
        mapped_file& same = c;
        c = std::move(same);  // a self-move leaves it as it was
        CHECK(c.supplier() == &s.supplier);
        char out[4];
        REQUIRE(c.read_at(10, out, sizeof out).ok());
        CHECK(s.fetches.size() == 2);
        CHECK(s.releases == 0);
    }
    CHECK(s.releases == 1);
    CHECK(s.released == s.memory.data());
    CHECK(s.released_size == 8000);

    // Assigning over a supplied file releases it then, once.
    store t(onnxview_test::pattern(100));
    {
        mapped_file x = s.file();
        mapped_file y = t.file();
        x = std::move(y);
        CHECK(s.releases == 2);
        CHECK(t.releases == 0);
        CHECK(x.supplier() == &t.supplier);
    }
    CHECK(s.releases == 2);
    CHECK(t.releases == 1);
}

TEST_CASE("mapped_file::supplied in a shared_file: the last copy releases it", "[io][supplied]") {
    store s(onnxview_test::pattern(1000));
    {
        auto shared = shared_file::make(s.file());
        REQUIRE(shared.ok());
        shared_file copy = shared.value();
        CHECK(copy.use_count() == 2);
        REQUIRE(copy.get() != nullptr);
        CHECK(copy.get()->supplier() == &s.supplier);
        REQUIRE(copy.get()->ensure(0, 0).ok());
        CHECK(copy.bytes() == s.content);
        shared.value() = shared_file();
        CHECK(s.releases == 0);
    }
    CHECK(s.releases == 1);
}
