// Each misuse of the API named on the command line must stop the program
// (ONNXVIEW_ASSERT, compiled in here whatever the build type): meson runs one
// test per case, each expected to fail. "none" runs the same code correctly
// and must succeed, so a case that fails for another reason is told apart.
#include <cstdio>
#include <cstring>
#include <string>

#include "../wire_builder.hpp"
#include "onnxview/cursor.hpp"
#include "onnxview/model.hpp"

using namespace onnxview;

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const std::string what = argv[1];
    const bool misuse = what != "none";
    onnxview::testing::wire_builder b;
    b.field_bytes(node_view::field::input, "x").field_bytes(node_view::field::op_type, "Relu");
    const std::string bytes = b.str();
    long sink = 0;
    if (what == "result_value" || what == "none") {
        const result<int> r = misuse ? result<int>(errc::truncated) : result<int>(7);
        sink += r.value();
    }
    if (what == "range_end" || what == "none") {
        const node_view n = parse_as<node_view>(bytes.data(), bytes.size());
        const auto inputs = n.input();
        auto it = inputs.begin();
        if (misuse) ++it;  // now at the end
        sink += static_cast<long>((*it).size());
    }
    if (what == "repeated_end" || what == "none") {
        onnxview::testing::wire_builder t;
        t.packed_varint(tensor_view::field::dims, {3});
        const std::string tb = t.str();
        const tensor_view tv = parse_as<tensor_view>(tb.data(), tb.size());
        const auto dims = tv.dims();
        auto it = dims.begin();
        if (misuse) ++it;
        sink += static_cast<long>(*it);
    }
    if (what == "cursor_before_next" || what == "none") {
        auto c = cursor_as<node_view>(bytes.data(), bytes.size());
        if (!misuse) c.next();
        sink += static_cast<long>(c.as_string().size());
    }
    std::printf("%s: ran to the end (%ld)\n", what.c_str(), sink);
    return 0;
}
