// examples/vfs_callbacks.cpp - reading a model through a game engine's VFS.
//
//   vfs_callbacks TESTDATA_DIR
//
// Engines rarely let a library call fopen: assets live in packed archives,
// in memory, or behind an async loader. onnxview never touches the file
// system when it is given `file_callbacks` (onnxview/options.hpp): the model
// *and* its external-data files are asked for by name, and the engine hands
// back bytes it owns (here: pointers into an in-memory archive, no copy),
// then gets them back through `release`.
//
// This example packs testdata/small_cnn.onnx and small_cnn.weights into a toy
// archive, opens the model and its two external tensors through the archive
// only, and checks every value against small_cnn_inline.onnx (the same model
// with inline weights). Exit 0 when all agree.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/external_data.hpp"
#include "onnxview/external_source.hpp"
#include "onnxview/file.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"

namespace {

// ---- The engine side: a packed archive held in memory ----------------------
struct archive {
    struct entry {
        std::string name;  // "models/small_cnn.onnx"
        std::vector<char> bytes;
    };
    std::vector<entry> entries;
    int open_handles = 0;  // what the engine tracks: every map has a release
    int lookups = 0;

    const entry* find(std::string_view name) const {
        for (const entry& e : entries)
            if (e.name == name) return &e;
        return nullptr;
    }
};

// Real engines read the pack from disk once at startup; so do we.
bool pack_file(archive& a, const std::string& dir, const char* file, const char* as) {
    std::FILE* f = std::fopen((dir + "/" + file).c_str(), "rb");
    if (!f) return false;
    archive::entry e{as, {}};
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) e.bytes.insert(e.bytes.end(), buf, buf + n);
    std::fclose(f);
    a.entries.push_back(std::move(e));
    return true;
}

// ---- The glue: onnxview's callbacks over the archive -------------------------
// `map` hands out a pointer into the archive (zero copy); the bytes must stay
// unchanged until `release`. Return 0, or an errno-like code that onnxview
// reports in error::sys_errno (of a callback_failed error).
int vfs_map(void* user, const char* path, const void** data, std::uint64_t* size) {
    archive& a = *static_cast<archive*>(user);
    ++a.lookups;
    const std::string_view p(path);
    const std::string_view scheme = "pak://";
    const archive::entry* e = a.find(p.substr(0, scheme.size()) == scheme ? p.substr(scheme.size()) : p);
    if (!e) return 2;  // ENOENT
    *data = e->bytes.data();
    *size = e->bytes.size();
    ++a.open_handles;
    return 0;
}
void vfs_release(void* user, const void*, std::uint64_t) { --static_cast<archive*>(user)->open_handles; }

// The model layer asks for an EXTERNAL tensor's bytes through this; it
// forwards the tensor's external_data entries to the resolver, which opens
// "<base_dir>/<location>" through the callbacks above (after refusing
// absolute paths, `..` and the like).
onnxview::result<std::string_view> fetch_external(void* user, const onnxview::tensor_view& t,
                                                  std::uint64_t expected_bytes) {
    auto& resolver = *static_cast<onnxview::external_data_resolver*>(user);
    onnxview::external_entry kv[8];
    std::size_t n = 0;
    for (const onnxview::string_entry_view& e : t.external_data()) {
        if (n == 8) return onnxview::errc::external_bad_entry;
        kv[n++] = {e.key(), e.value()};
    }
    auto span = resolver.resolve(kv, n, expected_bytes);
    if (!span) {
        char why[512];
        std::fprintf(stderr, "external data: %s\n", onnxview::describe_external_error(span.err(), t, why, sizeof why));
        return span.err();
    }
    return span->bytes();
}

int fail(const char* what, onnxview::error e) {
    std::fprintf(stderr, "%s: %s at byte %" PRIu64 "\n", what, onnxview::errc_message(e.code), e.offset);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: vfs_callbacks TESTDATA_DIR\n");
        return 2;
    }
    archive pak;
    if (!pack_file(pak, argv[1], "small_cnn.onnx", "models/small_cnn.onnx") ||
        !pack_file(pak, argv[1], "small_cnn.weights", "models/small_cnn.weights") ||
        !pack_file(pak, argv[1], "small_cnn_inline.onnx", "models/small_cnn_inline.onnx")) {
        std::fprintf(stderr, "cannot read the test models in %s\n", argv[1]);
        return 2;
    }

    onnxview::file_callbacks cb{};
    cb.map = vfs_map;
    cb.release = vfs_release;
    cb.user_data = &pak;
    {
        // The model, by VFS name. `file` owns the archive's bytes until it dies.
        auto file = onnxview::mapped_file::from_callbacks("pak://models/small_cnn.onnx", cb);
        if (!file) return fail("model", file.err());
        auto inline_file = onnxview::mapped_file::from_callbacks("pak://models/small_cnn_inline.onnx", cb);
        if (!inline_file) return fail("inline model", inline_file.err());

        // External data through the same callbacks: base_dir is only joined
        // to each location, never resolved on a real file system.
        onnxview::options opts{};
        opts.external_files = &cb;
        opts.external_base_dir = "pak://models";
        auto resolver = onnxview::external_data_resolver::create(opts);
        if (!resolver) return fail("resolver", resolver.err());
        const onnxview::external_payload_source source{&resolver.value(), fetch_external};

        const auto model = onnxview::parse_model(file->data(), file->size());
        const auto reference = onnxview::parse_model(inline_file->data(), inline_file->size());
        int external = 0, mismatches = 0;
        for (const onnxview::tensor_view& t : model.graph().initializer()) {
            if (t.data_location() != onnxview::location_kind::external) continue;
            auto data = onnxview::tensor_data::make(t, source);
            if (!data) return fail("external tensor", data.err());
            ++external;
            // The same initializer, inline, in the reference model.
            for (const onnxview::tensor_view& r : reference.graph().initializer()) {
                if (r.name() != t.name()) continue;
                auto want = onnxview::tensor_data::make(r);
                if (!want || want->size() != data->size()) return fail("reference tensor", want.err());
                auto a = data->elements<float>();
                auto b = want->elements<float>();
                auto ib = b.begin();
                for (float x : a) {
                    const float y = *ib;
                    ++ib;
                    mismatches += std::memcmp(&x, &y, sizeof x) != 0;  // bit-exact, NaN too
                }
                std::printf("%.*s: %" PRIu64 " floats from pak://models/small_cnn.weights (%s)\n",
                            static_cast<int>(t.name().size()), t.name().data(), data->size(),
                            a.ok() && b.ok() ? "read" : "error");
            }
        }
        std::printf("%d external tensors, %d mismatches; %zu file(s) opened by the resolver; "
                    "%d VFS lookups, %d handles open\n",
                    external, mismatches, resolver->file_count(), pak.lookups, pak.open_handles);
        if (external != 2 || mismatches != 0 || resolver->file_count() != 1) return 1;
    }
    // Every map was released when the files and the resolver went away.
    std::printf("after cleanup: %d handles open\n", pak.open_handles);
    return pak.open_handles == 0 ? 0 : 1;
}
