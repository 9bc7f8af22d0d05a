// output_file (onnxview/output_file.hpp): complete or absent.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "../io/tmpdir.hpp"
#include "onnxview/file.hpp"
#include "onnxview/output_file.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;

namespace {
int entries(const std::string& dir) {
    int n = 0;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
        ::closedir(d);
    }
    return n;
}
std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}
}  // namespace

TEST_CASE("output_file: commit renames the complete file into place") {
    onnxview_test::tmpdir dir;
    const std::string path = dir / "out.onnx";
    REQUIRE(onnxview_test::write_file(path, "old"));
    {
        auto f = output_file::create(path.c_str());
        REQUIRE(f.ok());
        CHECK(std::string(f.value().temp_path()).find("/.out.onnx.tmp") != std::string::npos);
        const write_sink s = f.value().sink();
        REQUIRE(s.write(s.user, "new bytes", 9).ok());
        CHECK(slurp(path) == "old");  // readers see the old file until commit
        CHECK(entries(dir.path()) == 2);
        REQUIRE(f.value().commit().ok());
    }
    CHECK(slurp(path) == "new bytes");
    CHECK(entries(dir.path()) == 1);
    struct stat st;
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) != 0600);  // a new file's permissions, not mkstemp's
}

TEST_CASE("output_file: discarded or destroyed before commit, nothing is left") {
    onnxview_test::tmpdir dir;
    const std::string path = dir / "out.onnx";
    {
        auto f = output_file::create(path.c_str());
        REQUIRE(f.ok());
        const write_sink s = f.value().sink();
        REQUIRE(s.write(s.user, "partial", 7).ok());
    }
    CHECK(entries(dir.path()) == 0);
    auto g = output_file::create(path.c_str());
    REQUIRE(g.ok());
    g.value().discard();
    CHECK(entries(dir.path()) == 0);
    CHECK(g.value().commit().code == errc::invalid_argument);
}

TEST_CASE("output_file: a missing directory is io_open_failed with errno") {
    onnxview_test::tmpdir dir;
    const std::string path = dir / "missing/out.onnx";
    auto f = output_file::create(path.c_str());
    REQUIRE(!f.ok());
    CHECK(f.err().code == errc::io_open_failed);
    CHECK(f.err().sys_errno != 0);
    CHECK(output_file::create("").err().code == errc::invalid_argument);
}

TEST_CASE("fd_sink copies payloads file to file (source_fd) into the same bytes pack_model writes from memory") {
    onnxview_test::tmpdir dir;
    // A model whose raw_data payloads are large enough to be copied.
    std::string tensor;
    const std::string payload(5000, '\x5a');
    tensor += std::string("\x0a\x02\x88\x27\x10\x02\x42\x01w\x4a", 10);  // dims [5000], UINT8, name "w", raw_data tag
    tensor += std::string("\x88\x27", 2) + payload;                     // length 5000
    std::string graph = std::string("\x2a", 1) + static_cast<char>(0x80 | ((tensor.size()) & 0x7F)) +
                        static_cast<char>(tensor.size() >> 7) + tensor;
    std::string model = std::string("\x08\x08\x3a", 3) + static_cast<char>(0x80 | (graph.size() & 0x7F)) +
                        static_cast<char>(graph.size() >> 7) + graph;
    const std::string in_path = dir / "in.onnx";
    REQUIRE(onnxview_test::write_file(in_path, model));

    std::string expected;
    const write_sink to_string{&expected, [](void* u, const char* d, std::size_t n) noexcept {
                                   static_cast<std::string*>(u)->append(d, n);
                                   return error();
                               }};
    REQUIRE(pack_model(model, nullptr, pack_options{}, to_string, nullptr).ok());
    REQUIRE(expected != model);  // the payload moved to an aligned offset

    auto source = read_descriptor::open(in_path.c_str());
    REQUIRE(source.ok());
    CHECK(read_descriptor::open((dir / "none").c_str()).err().code == errc::io_open_failed);
    auto out = output_file::create((dir / "out.onnx").c_str());
    REQUIRE(out.ok());
    pack_options po{};
    po.source_fd = source.value().get();
    const write_sink sink = out.value().sink();
    REQUIRE(sink.copy != nullptr);
    REQUIRE(pack_model(model, nullptr, po, sink, nullptr).ok());
    REQUIRE(out.value().commit().ok());
    CHECK(slurp(dir / "out.onnx") == expected);
}
