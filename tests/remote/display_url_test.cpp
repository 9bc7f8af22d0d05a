// display_url and is_remote_url (onnxview/remote/remote_file.hpp): what a
// message may show of a URL, and which strings the remote reader takes.
#include <catch2/catch.hpp>

#include "onnxview/remote/remote_file.hpp"

using onnxview::display_url;
using onnxview::is_remote_url;

TEST_CASE("display_url: credentials, query and fragment are left out", "[remote][url]") {
    CHECK(display_url("https://example.com/a/m.onnx") == "https://example.com/a/m.onnx");
    CHECK(display_url("https://alice:hunter2@example.com/m.onnx") == "https://example.com/m.onnx");
    CHECK(display_url("https://token@example.com:8443/m.onnx") == "https://example.com:8443/m.onnx");
    CHECK(display_url("https://b.s3.amazonaws.com/m.onnx?X-Amz-Signature=abc&X-Amz-Credential=AK") ==
          "https://b.s3.amazonaws.com/m.onnx");
    CHECK(display_url("http://127.0.0.1:80/m.onnx#part") == "http://127.0.0.1:80/m.onnx");
    // An @ in the path or the query is no user information.
    CHECK(display_url("https://example.com/users/@me/m.onnx") == "https://example.com/users/@me/m.onnx");
    CHECK(display_url("https://example.com/m.onnx?u=a@b") == "https://example.com/m.onnx");
    CHECK(display_url("https://a:b@example.com?x=1") == "https://example.com");
    CHECK(display_url("s3://bucket/key/m.onnx") == "s3://bucket/key/m.onnx");
    CHECK(display_url("hf://owner/repo@main/m.onnx") == "hf://owner/repo@main/m.onnx");
    CHECK(display_url("") == "");
    CHECK(display_url(nullptr) == "");
}

TEST_CASE("is_remote_url: the schemes open_remote takes", "[remote][url]") {
    for (const char* yes : {"http://h/m.onnx", "https://h/m.onnx", "s3://b/k", "hf://o/r/m.onnx"}) CHECK(is_remote_url(yes));
    for (const char* no : {"m.onnx", "/tmp/http://x", "ftp://h/m.onnx", "file:///m.onnx", "HTTP:/h", ""})
        CHECK_FALSE(is_remote_url(no));
    CHECK_FALSE(is_remote_url(nullptr));
}
