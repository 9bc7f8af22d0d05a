// The scanner's parts that need no corpus (onnxview/scan.hpp): SHA-256
// against FIPS 180-4's vectors, and the records of a model, a missing file
// and a file that is no model. Every field against python3-onnx, and each
// security finding on its fixture: tests/oracle/scan_oracle.py.
#include <catch2/catch.hpp>

#include <string>

#include "onnxview/display.hpp"
#include "onnxview/scan.hpp"

using namespace onnxview;

#ifndef ONNXVIEW_SOURCE_ROOT
#error "ONNXVIEW_SOURCE_ROOT must name the source tree (tests/scan/meson.build)"
#endif

TEST_CASE("scan: SHA-256 of FIPS 180-4's examples and of block-boundary lengths") {
    CHECK(sha256_hex("", 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc", 3) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";  // 448 bits
    CHECK(sha256_hex(two_blocks.data(), two_blocks.size()) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const std::string million(1000000, 'a');
    CHECK(sha256_hex(million.data(), million.size()) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("scan: a model's record is one line with its facts and no finding") {
    const std::string path = std::string(ONNXVIEW_SOURCE_ROOT) + "/testdata/small_cnn.onnx";
    scan_options opts;
    opts.digests = true;
    const scan_record r = scan_file(path.c_str(), opts);
    CHECK(r.readable);
    CHECK(r.is_model);
    CHECK(r.json.find('\n') == std::string::npos);
    CHECK(r.json.find("\"schema\":\"onnxview-scan/1\"") != std::string::npos);
    CHECK(r.findings.empty());
    CHECK(r.highest == scan_severity::none);
    REQUIRE(r.external_files.size() == 1);
    CHECK(r.external_files[0].location == "small_cnn.weights");
    CHECK(r.external_files[0].exists);
    CHECK(r.external_files[0].in_range);
    CHECK(r.external_files[0].sha256.size() == 64);
    CHECK(r.sha256.size() == 64);
    CHECK(r.parameters > 0);
}

TEST_CASE("scan: a missing file and a file that is no model are records, not failures") {
    const scan_record missing = scan_file("/nonexistent/dir/model.onnx", {});
    CHECK_FALSE(missing.readable);
    REQUIRE(missing.findings.size() == 1);
    CHECK(missing.findings[0].code == "file_unreadable");
    CHECK(missing.highest == scan_severity::error);
    CHECK(missing.json.find("\"error\":") != std::string::npos);
    const std::string text = std::string(ONNXVIEW_SOURCE_ROOT) + "/meson.build";
    const scan_record other = scan_file(text.c_str(), {});
    CHECK(other.readable);
    CHECK_FALSE(other.is_model);
    REQUIRE_FALSE(other.findings.empty());
    CHECK(other.findings[0].code == "not_a_model");
}

TEST_CASE("grouped_count: thousands grouped, as scan's and graph's messages write counts") {
    CHECK(grouped_count(0) == "0");
    CHECK(grouped_count(999) == "999");
    CHECK(grouped_count(1000) == "1,000");
    CHECK(grouped_count(4294967296u) == "4,294,967,296");
    CHECK(grouped_count(~std::uint64_t(0)) == "18,446,744,073,709,551,615");
}
