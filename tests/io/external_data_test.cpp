// external_data_resolver: the happy path, sharing, limits, checksums, and
// every attack on `location`, `offset` and `length` with its own error.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "onnxview/external_data.hpp"
#include "counting_allocator.hpp"
#include "tmpdir.hpp"

using onnxview::errc;
using onnxview::options;
using onnxview::external_data_resolver;
using onnxview::external_entry;
using onnxview::external_span;
using onnxview::mapped_file;
using onnxview::unknown_size;
using onnxview_test::pattern;
using onnxview_test::tmpdir;
using onnxview_test::write_file;

namespace {

constexpr std::size_t big = 256 * 1024;  // above copy_below: mapped

// A model directory with weights.bin (mapped) and small.bin (copied).
struct fixture {
    tmpdir dir;
    std::string weights = pattern(big);
    std::string small = pattern(1000);
    fixture() {
        REQUIRE(!dir.path().empty());
        REQUIRE(write_file(dir / "weights.bin", weights));
        REQUIRE(write_file(dir / "small.bin", small));
        REQUIRE(write_file(dir / "model.onnx", "model"));
    }
    external_data_resolver resolver(options o = {}) {
        if (o.external_base_dir == nullptr && o.model_path == nullptr) o.external_base_dir = dir.path().c_str();
        auto r = external_data_resolver::create(o);
        REQUIRE(r.ok());
        return std::move(r.value());
    }
};

std::vector<external_entry> entries(std::string_view location, std::string_view offset = {},
                                    std::string_view length = {}) {
    std::vector<external_entry> e{{"location", location}};
    if (offset.data() != nullptr) e.push_back({"offset", offset});
    if (length.data() != nullptr) e.push_back({"length", length});
    return e;
}

// What resolve() refused with, and the line describe_external_error makes of it.
struct refusal {
    onnxview::error err;
    std::string message;
};

// Resolves and checks the error's group and its finer code; the message
// names the tensor and the location.
refusal expect_error(external_data_resolver& r, const std::vector<external_entry>& e, errc group,
                     errc code, std::uint64_t expected = unknown_size) {
    auto s = r.resolve(e.data(), e.size(), expected);
    std::string_view location;
    for (const external_entry& kv : e)
        if (kv.key == "location") location = kv.value;
    char text[512];
    const std::string message = onnxview::describe_external_error(s.err(), "w", location, text, sizeof text);
    INFO("message: " << message);
    CHECK(onnxview::errc_group(s.err().code) == group);
    CHECK(s.err().code == code);
    CHECK(message.find("tensor 'w'") != std::string::npos);
    return {s.err(), message};
}

}  // namespace

TEST_CASE("external: two tensors in one file share one mapping", "[io][external]") {
    fixture fx;
    auto r = fx.resolver();
    CHECK(r.file_count() == 0);  // lazy: nothing opened before the first resolve
    auto a = entries("weights.bin", "0", "4096");
    auto b = entries("./weights.bin", "8192", "100");  // same file, spelled differently
    auto sa = r.resolve(a.data(), a.size(), 4096);
    auto sb = r.resolve(b.data(), b.size(), 100);
    REQUIRE(sa.ok());
    REQUIRE(sb.ok());
    CHECK(r.file_count() == 1);
    CHECK(r.total_bytes() == big);
    CHECK(sa->file == sb->file);
    CHECK(sa->file->kind() == mapped_file::storage::mapped);
    CHECK(sb->data == sa->data + 8192);
    CHECK(sa->bytes() == std::string_view(fx.weights).substr(0, 4096));
    CHECK(sb->bytes() == std::string_view(fx.weights).substr(8192, 100));
    CHECK(sa->location == "weights.bin");
    CHECK(sb->location == "weights.bin");
    CHECK(sa->offset_in_page == 0);
    CHECK(sb->offset == 8192);

    auto c = entries("weights.bin", "4100", "4");
    auto sc = r.resolve(c.data(), c.size(), 4);
    REQUIRE(sc.ok());
    CHECK(sc->offset_in_page == 4);  // reported, not refused

    // Spans stay valid when the resolver moves.
    external_data_resolver moved = std::move(r);
    CHECK(moved.file_count() == 1);
    CHECK(sa->bytes() == std::string_view(fx.weights).substr(0, 4096));
}

TEST_CASE("external: small files are copied, not mapped", "[io][external]") {
    fixture fx;
    auto r = fx.resolver();
    auto e = entries("small.bin", "10", "20");
    auto s = r.resolve(e.data(), e.size(), 20);
    REQUIRE(s.ok());
    CHECK(s->file->kind() == mapped_file::storage::buffer);
    CHECK(s->bytes() == std::string_view(fx.small).substr(10, 20));
}

TEST_CASE("external: the base is the model's directory", "[io][external]") {
    fixture fx;
    const std::string model = fx.dir / "model.onnx";
    options o;
    o.model_path = model.c_str();
    auto r = fx.resolver(o);
    auto e = entries("small.bin");
    auto s = r.resolve(e.data(), e.size(), 1000);
    REQUIRE(s.ok());
    CHECK(s->bytes() == fx.small);

    // base_dir wins over model_path
    REQUIRE(::mkdir((fx.dir / "other").c_str(), 0700) == 0);
    REQUIRE(write_file(fx.dir / "other/small.bin", "OTHER"));
    const std::string other = fx.dir / "other";
    o.external_base_dir = other.c_str();
    auto r2 = fx.resolver(o);
    auto s2 = r2.resolve(e.data(), e.size(), unknown_size);
    REQUIRE(s2.ok());
    CHECK(s2->bytes() == "OTHER");
}

TEST_CASE("external: base directory errors", "[io][external]") {
    fixture fx;
    options o;
    const std::string missing = fx.dir / "missing";
    o.external_base_dir = missing.c_str();
    const onnxview::error missing_base = external_data_resolver::create(o).err();
    CHECK(onnxview::errc_group(missing_base.code) == errc::io_error);
    CHECK(missing_base.code == errc::io_resolve_failed);
    CHECK(missing_base.sys_errno == ENOENT);
    const std::string file = fx.dir / "model.onnx";
    o.external_base_dir = file.c_str();
    CHECK(external_data_resolver::create(o).err().code == errc::invalid_argument);
    o.external_base_dir = "";
    CHECK(external_data_resolver::create(o).err().code == errc::invalid_argument);
}

TEST_CASE("external: missing length uses the rest of the file only when it fits", "[io][external]") {
    fixture fx;
    auto r = fx.resolver();
    auto e = entries("small.bin", "200");
    auto ok = r.resolve(e.data(), e.size(), 800);
    REQUIRE(ok.ok());
    CHECK(ok->size == 800);
    auto unknown = r.resolve(e.data(), e.size(), unknown_size);
    REQUIRE(unknown.ok());
    CHECK(unknown->size == 800);
    expect_error(r, e, errc::payload_size_mismatch, errc::external_rest_of_file_mismatch, 799);
    auto no_offset = entries("small.bin");
    auto whole = r.resolve(no_offset.data(), no_offset.size(), unknown_size);
    REQUIRE(whole.ok());
    CHECK(whole->bytes() == fx.small);
}

TEST_CASE("external: a length that differs from the expected size", "[io][external]") {
    fixture fx;
    auto r = fx.resolver();
    expect_error(r, entries("small.bin", "0", "16"), errc::payload_size_mismatch,
                 errc::external_length_mismatch, 32);
}

TEST_CASE("external: other keys are ignored and counted; duplicates refused", "[io][external]") {
    fixture fx;
    auto r = fx.resolver();
    std::vector<external_entry> e{{"basepath", "/somewhere"}, {"location", "small.bin"},
                                  {"length", "4"}, {"x-vendor", "1"}};
    auto s = r.resolve(e.data(), e.size(), 4);
    REQUIRE(s.ok());
    CHECK(s->ignored_keys == 2);
    std::vector<external_entry> dup{{"location", "small.bin"}, {"location", "weights.bin"}};
    expect_error(r, dup, errc::external_bad_entry, errc::external_duplicate_key);
    std::vector<external_entry> dup_len{{"location", "small.bin"}, {"length", "1"}, {"length", "2"}};
    expect_error(r, dup_len, errc::external_bad_entry, errc::external_duplicate_key);
}

// --- attacks on location --------------------------------------------------

TEST_CASE("external: missing and empty location", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    std::vector<external_entry> none{{"offset", "0"}};
    expect_error(r, none, errc::external_bad_entry, errc::external_missing_location);
    expect_error(r, entries(""), errc::external_bad_entry, errc::external_empty_location);
}

TEST_CASE("external: location containing NUL", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    // "small.bin\0../../etc/passwd": a C API would see only "small.bin".
    static const char loc[] = "small.bin\0../x";
    expect_error(r, entries(std::string_view(loc, sizeof loc - 1)), errc::external_path_unsafe,
                 errc::external_nul_in_location);
}

TEST_CASE("external: '..' components", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    for (const char* loc : {"../weights.bin", "a/../../weights.bin", "sub/..", "..", "./../x"}) {
        INFO(loc);
        expect_error(r, entries(loc), errc::external_path_unsafe, errc::external_parent_component);
    }
}

TEST_CASE("external: absolute path", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    const std::string abs = fx.dir / "small.bin";  // even one inside the base
    expect_error(r, entries(abs), errc::external_path_unsafe, errc::external_absolute_path);
    expect_error(r, entries("/etc/passwd"), errc::external_path_unsafe, errc::external_absolute_path);
}

TEST_CASE("external: Windows drive path C:\\x", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    expect_error(r, entries("C:\\x"), errc::external_path_unsafe, errc::external_drive_path);
    expect_error(r, entries("C:x"), errc::external_path_unsafe, errc::external_drive_path);
    expect_error(r, entries("c:/windows/x"), errc::external_path_unsafe, errc::external_drive_path);
}

TEST_CASE("external: UNC path \\\\server\\share", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    expect_error(r, entries("\\\\server\\share\\w.bin"), errc::external_path_unsafe, errc::external_unc_path);
    expect_error(r, entries("//server/share/w.bin"), errc::external_path_unsafe, errc::external_unc_path);
    expect_error(r, entries("sub\\w.bin"), errc::external_path_unsafe, errc::external_backslash);
    expect_error(r, entries("\\w.bin"), errc::external_path_unsafe, errc::external_absolute_path);
}

TEST_CASE("external: in-memory '#' locations need callbacks", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    expect_error(r, entries("#tensor0"), errc::external_bad_entry, errc::external_in_memory_location);
}

TEST_CASE("external: location longer than 4095 bytes", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    const std::string loc(5000, 'a');
    expect_error(r, entries(loc), errc::external_bad_entry, errc::external_location_too_long);
}

TEST_CASE("external: symlink planted in a parent directory escapes the base", "[io][external][attack]") {
    fixture fx;
    tmpdir outside;
    REQUIRE(write_file(outside / "secret.bin", "SECRET"));
    REQUIRE(::symlink(outside.path().c_str(), (fx.dir / "sub").c_str()) == 0);
    auto r = fx.resolver();
    const std::string msg = expect_error(r, entries("sub/secret.bin"), errc::external_path_unsafe,
                                         errc::external_symlink_escape).message;
    CHECK(msg.find("sub/secret.bin") != std::string::npos);
    // the final component as a symlink to a file outside
    REQUIRE(::symlink((outside / "secret.bin").c_str(), (fx.dir / "link.bin").c_str()) == 0);
    expect_error(r, entries("link.bin"), errc::external_path_unsafe, errc::external_symlink_escape);
    CHECK(r.file_count() == 0);
}

TEST_CASE("external: symlinks that stay inside the base are followed", "[io][external]") {
    fixture fx;
    REQUIRE(::mkdir((fx.dir / "data").c_str(), 0700) == 0);
    REQUIRE(write_file(fx.dir / "data/w.bin", "WWWW"));
    REQUIRE(::symlink("data", (fx.dir / "alias").c_str()) == 0);
    auto r = fx.resolver();
    auto e = entries("alias/w.bin");
    auto s = r.resolve(e.data(), e.size(), 4);
    REQUIRE(s.ok());
    CHECK(s->bytes() == "WWWW");
}

TEST_CASE("external: hard-linked file refused by default", "[io][external][attack]") {
    fixture fx;
    REQUIRE(::link((fx.dir / "small.bin").c_str(), (fx.dir / "hard.bin").c_str()) == 0);
    auto r = fx.resolver();
    expect_error(r, entries("hard.bin"), errc::external_hard_link, errc::external_hard_link);
    expect_error(r, entries("small.bin"), errc::external_hard_link, errc::external_hard_link);
    options o;
    o.allow_hard_links = true;
    auto allowed = fx.resolver(o);
    auto e = entries("hard.bin");
    auto s = allowed.resolve(e.data(), e.size(), 1000);
    REQUIRE(s.ok());
    CHECK(s->bytes() == fx.small);
}

TEST_CASE("external: location naming a directory", "[io][external][attack]") {
    fixture fx;
    REQUIRE(::mkdir((fx.dir / "subdir").c_str(), 0700) == 0);
    auto r = fx.resolver();
    expect_error(r, entries("subdir"), errc::is_directory, errc::is_directory);
    expect_error(r, entries("subdir/"), errc::is_directory, errc::is_directory);
    expect_error(r, entries("."), errc::is_directory, errc::is_directory);
}

TEST_CASE("external: /dev/zero is not a regular file", "[io][external][attack]") {
    options o;
    o.external_base_dir = "/dev";
    auto r = external_data_resolver::create(o);
    REQUIRE(r.ok());
    expect_error(r.value(), entries("zero", "0", "16"), errc::not_regular_file, errc::not_regular_file);
}

TEST_CASE("external: a FIFO is refused without blocking", "[io][external][attack]") {
    fixture fx;
    REQUIRE(::mkfifo((fx.dir / "pipe.bin").c_str(), 0600) == 0);
    auto r = fx.resolver();
    expect_error(r, entries("pipe.bin", "0", "16"), errc::not_regular_file, errc::not_regular_file);
}

TEST_CASE("external: missing file keeps errno", "[io][external]") {
    fixture fx;
    auto r = fx.resolver();
    const refusal gone = expect_error(r, entries("gone.bin"), errc::io_error, errc::io_resolve_failed);
    CHECK(gone.err.sys_errno == ENOENT);
    const std::string msg = gone.message;
    CHECK(msg.find(std::strerror(ENOENT)) != std::string::npos);
    CHECK(msg.find("gone.bin") != std::string::npos);
}

// --- attacks on offset and length -----------------------------------------

TEST_CASE("external: offset + length past the end of the file", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    expect_error(r, entries("small.bin", "900", "101"), errc::external_out_of_bounds,
                 errc::external_range_past_end);
    expect_error(r, entries("small.bin", "1001", "0"), errc::external_out_of_bounds,
                 errc::external_offset_past_end);
    expect_error(r, entries("small.bin", "1001"), errc::external_out_of_bounds,
                 errc::external_offset_past_end);
    auto exact = entries("small.bin", "900", "100");  // ends exactly at the end
    CHECK(r.resolve(exact.data(), exact.size(), 100).ok());
    auto empty_at_end = entries("small.bin", "1000", "0");
    auto s = r.resolve(empty_at_end.data(), empty_at_end.size(), 0);
    REQUIRE(s.ok());
    CHECK(s->size == 0);
}

TEST_CASE("external: offset + length overflowing 64 bits", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    expect_error(r, entries("small.bin", "18446744073709551615", "2"), errc::external_out_of_bounds,
                 errc::external_range_overflow);
    expect_error(r, entries("small.bin", "2", "18446744073709551615"), errc::external_out_of_bounds,
                 errc::external_range_overflow);
    expect_error(r, entries("small.bin", "18446744073709551616"), errc::external_out_of_bounds,
                 errc::external_number_too_large);
    expect_error(r, entries("small.bin", "0", "99999999999999999999999"), errc::external_out_of_bounds,
                 errc::external_number_too_large);
    CHECK(r.file_count() == 0);  // refused before any file was opened
}

TEST_CASE("external: offset or length that is not a plain decimal number", "[io][external][attack]") {
    fixture fx;
    auto r = fx.resolver();
    for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "12a", "1.0", "\xd9\xa1"}) {
        INFO("'" << bad << "'");
        expect_error(r, entries("small.bin", bad, "1"), errc::external_bad_entry,
                     errc::external_offset_not_decimal);
        expect_error(r, entries("small.bin", "0", bad), errc::external_bad_entry,
                     errc::external_length_not_decimal);
    }
    auto leading_zeros = entries("small.bin", "0010", "004");
    auto s = r.resolve(leading_zeros.data(), leading_zeros.size(), 4);
    REQUIRE(s.ok());
    CHECK(s->offset == 10);
}

// --- limits ------------------------------------------------------------------

TEST_CASE("external: max_external_files and max_external_bytes", "[io][external][limits]") {
    fixture fx;
    options o;
    o.max_external_files = 1;
    auto r = fx.resolver(o);
    auto a = entries("small.bin");
    REQUIRE(r.resolve(a.data(), a.size(), unknown_size).ok());
    REQUIRE(r.resolve(a.data(), a.size(), unknown_size).ok());  // same file: no new slot
    expect_error(r, entries("weights.bin"), errc::external_limit, errc::external_too_many_files);

    options b;
    b.max_external_bytes = big + 999;
    auto rb = fx.resolver(b);
    auto w = entries("weights.bin");
    REQUIRE(rb.resolve(w.data(), w.size(), unknown_size).ok());
    expect_error(rb, entries("small.bin"), errc::external_limit, errc::external_too_many_bytes);
    CHECK(rb.total_bytes() == big);
}

TEST_CASE("external: many files grow the table", "[io][external]") {
    fixture fx;
    auto r = fx.resolver();
    std::vector<external_span> spans;
    for (int i = 0; i < 40; ++i) {
        const std::string name = "f" + std::to_string(i) + ".bin";
        REQUIRE(write_file(fx.dir / name, "file " + std::to_string(i)));
        auto e = entries(name);
        auto s = r.resolve(e.data(), e.size(), unknown_size);
        REQUIRE(s.ok());
        spans.push_back(s.value());
    }
    CHECK(r.file_count() == 40);
    for (int i = 0; i < 40; ++i) CHECK(spans[std::size_t(i)].bytes() == "file " + std::to_string(i));
}

// --- checksums -----------------------------------------------------------------

TEST_CASE("external: SHA-1 checksum verified when asked", "[io][external][checksum]") {
    tmpdir dir;
    REQUIRE(write_file(dir / "abc.bin", "abc"));
    options o;
    o.external_base_dir = dir.path().c_str();
    o.verify_checksum = true;
    auto r = external_data_resolver::create(o);
    REQUIRE(r.ok());
    std::vector<external_entry> good{{"location", "abc.bin"},
                                     {"checksum", "a9993e364706816aba3e25717850c26c9cd0d89d"}};
    CHECK(r.value().resolve(good.data(), good.size(), 3).ok());
    std::vector<external_entry> upper{{"location", "abc.bin"},
                                      {"checksum", "A9993E364706816ABA3E25717850C26C9CD0D89D"}};
    CHECK(r.value().resolve(upper.data(), upper.size(), 3).ok());
    std::vector<external_entry> bad{{"location", "abc.bin"},
                                    {"checksum", "a9993e364706816aba3e25717850c26c9cd0d89e"}};
    expect_error(r.value(), bad, errc::checksum_mismatch, errc::checksum_mismatch);
    std::vector<external_entry> malformed{{"location", "abc.bin"}, {"checksum", "a9993e36"}};
    expect_error(r.value(), malformed, errc::external_bad_entry, errc::external_checksum_malformed);

    // Off by default: a wrong checksum is not looked at.
    options off;
    off.external_base_dir = dir.path().c_str();
    auto r2 = external_data_resolver::create(off);
    REQUIRE(r2.ok());
    CHECK(r2.value().resolve(bad.data(), bad.size(), 3).ok());
}

// --- callbacks -------------------------------------------------------------------

namespace {
struct pak {
    std::string content = pattern(5000);
    std::vector<std::string> paths;
};
int pak_map(void* user, const char* path, const void** data, std::uint64_t* size) {
    auto* p = static_cast<pak*>(user);
    p->paths.push_back(path);
    if (std::strstr(path, "missing") != nullptr) return ENOENT;
    *data = p->content.data();
    *size = p->content.size();
    return 0;
}
}  // namespace

TEST_CASE("external: caller callbacks open the files", "[io][external][callbacks]") {
    pak p;
    onnxview::file_callbacks cb;
    cb.map = pak_map;
    cb.user_data = &p;
    options o;
    o.external_files = &cb;
    o.external_base_dir = "vfs://models";
    auto r = external_data_resolver::create(o);
    REQUIRE(r.ok());
    auto e = entries("a/./w.bin", "100", "10");
    auto s = r.value().resolve(e.data(), e.size(), 10);
    REQUIRE(s.ok());
    CHECK(s->bytes() == std::string_view(p.content).substr(100, 10));
    auto again = r.value().resolve(e.data(), e.size(), 10);
    REQUIRE(again.ok());
    REQUIRE(p.paths.size() == 1);  // opened once
    CHECK(p.paths[0] == "vfs://models/a/w.bin");

    // Lexical checks still apply before any callback runs.
    expect_error(r.value(), entries("../w.bin"), errc::external_path_unsafe, errc::external_parent_component);
    const refusal missing = expect_error(r.value(), entries("missing.bin"), errc::io_error, errc::callback_failed);
    CHECK(missing.err.sys_errno == ENOENT);

    // '#' in-memory names go to the callbacks bare.
    auto mem = entries("#t0", "0", "5");
    REQUIRE(r.value().resolve(mem.data(), mem.size(), 5).ok());
    CHECK(p.paths.back() == "#t0");
}

TEST_CASE("external: error names are stable", "[io][external]") {
    CHECK(std::string(onnxview::errc_name(errc::external_parent_component)) == "external_parent_component");
    CHECK(std::string(onnxview::errc_name(errc::file_empty)) == "file_empty");
    CHECK(std::string(onnxview::errc_name(static_cast<errc>(250))) == "unknown");
}

#ifdef ONNXVIEW_SOURCE_ROOT
TEST_CASE("external: testdata/small_cnn.weights holds the inline model's raw_data", "[io][external][testdata]") {
    const std::string root = ONNXVIEW_SOURCE_ROOT;
    const std::string model = root + "/testdata/small_cnn.onnx";
    auto inline_model = mapped_file::open((root + "/testdata/small_cnn_inline.onnx").c_str());
    REQUIRE(inline_model.ok());
    options o;
    o.model_path = model.c_str();
    auto r = external_data_resolver::create(o);
    REQUIRE(r.ok());
    // Entries as testdata/README.md lists them: conv2.weight and fc.weight.
    std::vector<external_entry> conv2{{"location", "small_cnn.weights"}, {"offset", "0"}, {"length", "4608"}};
    std::vector<external_entry> fc{{"location", "small_cnn.weights"}, {"offset", "4608"}, {"length", "10240"}};
    auto a = r.value().resolve(conv2.data(), conv2.size(), 4608);
    auto b = r.value().resolve(fc.data(), fc.size(), 10240);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(r->file_count() == 1);
    CHECK(b->offset_in_page == 4608 % 4096);
    // The same bytes appear verbatim as raw_data in the inline copy of the model.
    CHECK(inline_model->bytes().find(a->bytes()) != std::string_view::npos);
    CHECK(inline_model->bytes().find(b->bytes()) != std::string_view::npos);
}
#endif

TEST_CASE("external: every allocation of the resolver goes through options::memory", "[io][external][memory]") {
    fixture f;
    const auto small = entries("small.bin");
    const auto weights = entries("weights.bin", "4096", "8192");
    onnxview_test::counting_allocator memory;
    {
        options o;
        o.memory = memory.hooks();
        external_data_resolver r = f.resolver(o);
        auto a = r.resolve(small.data(), small.size(), unknown_size);
        REQUIRE(a.ok());
        CHECK(a->bytes() == f.small);  // a heap copy (below external_copy_below)
        auto b = r.resolve(weights.data(), weights.size(), 8192);
        REQUIRE(b.ok());
        CHECK(b->bytes() == f.weights.substr(4096, 8192));
        external_data_resolver moved = std::move(r);
        CHECK(moved.file_count() == 2);
    }
    CHECK(memory.requests() > 0);
    CHECK(memory.outstanding() == 0);
    CHECK(memory.consistent());

    // Memory running out at any request: out_of_memory, never a crash or a leak.
    const std::size_t needed = memory.requests();
    for (std::size_t n = 0; n < needed; ++n) {
        onnxview_test::counting_allocator failing;
        failing.fail_from(n);
        options o;
        o.external_base_dir = f.dir.path().c_str();
        o.memory = failing.hooks();
        {
            auto r = external_data_resolver::create(o);
            if (r.ok()) {
                auto a = r.value().resolve(small.data(), small.size(), unknown_size);
                auto b = r.value().resolve(weights.data(), weights.size(), 8192);
                CHECK((a.err().code == errc::out_of_memory || b.err().code == errc::out_of_memory));
            } else {
                CHECK(r.err().code == errc::out_of_memory);
            }
        }
        CHECK(failing.outstanding() == 0);
        CHECK(failing.consistent());
    }
}

TEST_CASE("external: file_holding finds a span's file; keep_descriptor for the first files", "[io][external]") {
    fixture fx;
    options o;
    o.keep_descriptor = true;
    auto r = fx.resolver(o);
    auto w = entries("weights.bin", "4096", "100");
    auto s = entries("small.bin", "10", "20");
    auto sw = r.resolve(w.data(), w.size(), 100);
    auto ss = r.resolve(s.data(), s.size(), 20);
    REQUIRE(sw.ok());
    REQUIRE(ss.ok());
    CHECK(r.file_holding(sw->data, sw->size) == sw->file);
    CHECK(r.file_holding(sw->file->data(), sw->file->size()) == sw->file);
    CHECK(r.file_holding(ss->data, ss->size) == ss->file);
    CHECK(r.file_holding(sw->data, sw->file->size()) == nullptr);  // runs past the file's end
    CHECK(r.file_holding(fx.weights.data(), 10) == nullptr);        // other memory
    CHECK(sw->file->keeps_descriptor());        // mapped
    CHECK_FALSE(ss->file->keeps_descriptor());  // a heap copy needs none
    char out[100];
    REQUIRE(sw->file->read_at(4096, out, sizeof out).ok());
    CHECK(std::string_view(out, sizeof out) == sw->bytes());

    // Only the first kept_descriptor_files files keep one.
    for (std::size_t i = 0; i <= external_data_resolver::kept_descriptor_files; ++i)
        REQUIRE(write_file(fx.dir / ("w" + std::to_string(i) + ".bin"), fx.weights));
    auto many = fx.resolver(o);
    std::size_t kept = 0;
    for (std::size_t i = 0; i <= external_data_resolver::kept_descriptor_files; ++i) {
        const std::string name = "w" + std::to_string(i) + ".bin";
        auto e = entries(name, "0", "8");
        auto span = many.resolve(e.data(), e.size(), 8);
        REQUIRE(span.ok());
        kept += span->file->keeps_descriptor();
    }
    CHECK(kept == external_data_resolver::kept_descriptor_files);
    // Without the option, none.
    auto plain = fx.resolver();
    auto sp = plain.resolve(w.data(), w.size(), 100);
    REQUIRE(sp.ok());
    CHECK_FALSE(sp->file->keeps_descriptor());
    CHECK(plain.file_holding(sp->data, sp->size) == sp->file);
}
