// Compiled by tests/recipe/add_field.py against the headers and the schema
// table that scripts/gen_schema.py wrote for a copy of schema/onnx.schema with
// one more field: ModelProto field 27, `license`, a string (the example of
// the "Add a schema field" recipe in docs/architecture.md). Reads that field
// from bytes built here through each generated surface. Exits 0 when all
// agree, 1 naming the first that does not.
#include <cstdio>
#include <cstring>
#include <string>

#include <onnxview/cursor.hpp>
#include <onnxview/field_path.hpp>
#include <onnxview/model.hpp>
#include <onnxview/text_format.hpp>
#include <onnxview/verify.hpp>

using namespace onnxview;

namespace {
int failures = 0;
void expect(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAIL %s\n", what);
        ++failures;
    } else {
        std::printf("ok   %s\n", what);
    }
}
void append(void* user, const char* data, std::size_t n) { static_cast<std::string*>(user)->append(data, n); }
}  // namespace

int main(int argc, char** argv) {
    // With --views-only the runtime descriptors are the library's own (a
    // single-header build links them in one object with everything else).
    const bool views_only = argc > 1 && std::strcmp(argv[1], "--views-only") == 0;
    static_assert(model_view::field::license == 27, "the field number constant");
    // ir_version = 8 (field 1, varint), then license = "MIT" (field 27,
    // length-delimited: tag (27 << 3) | 2 = 218, the varint DA 01).
    const std::string bytes("\x08\x08\xda\x01\x03MIT", 8);
    const model_view m = parse_model(bytes.data(), bytes.size());
    expect(m.err().ok() && m.ir_version() == 8, "the model parses");
    expect(m.has_license() && m.license() == "MIT", "model_view::license() reads the field");

    cursor<model_view> c = model_cursor(bytes.data(), bytes.size());
    bool seen = false;
    while (const std::uint32_t f = c.next())
        if (f == model_view::field::license) seen = c.as_string() == "MIT";
    expect(c.ok() && seen, "cursor<model_view> yields the field");

    if (views_only) return failures == 0 ? 0 : 1;
    expect(verify(bytes.data(), bytes.size()).ok(), "verify() accepts it");
    std::string text;
    const error e = print_text(bytes.data(), bytes.size(), schema::msg_ModelProto, output_sink{append, &text});
    expect(e.ok() && text == "ir_version: 8\nlicense: \"MIT\"\n", "print_text names it (not an unknown field 27)");
    if (!e.ok() || text.find("license") == std::string::npos) std::printf("     printed: %s\n", text.c_str());
    char path[64];
    const auto n = field_path_at(bytes.data(), bytes.size(), 5, schema::msg_ModelProto, path, sizeof path);
    expect(n && std::string(path) == "license", "field_path_at names it");
    const schema::field_desc* fd = schema::msg_ModelProto.find(27);
    expect(fd != nullptr && std::string(fd->name) == "license", "schema::msg_ModelProto.find(27)");
    return failures == 0 ? 0 : 1;
}
