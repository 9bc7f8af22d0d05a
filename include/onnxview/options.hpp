// onnxview/options.hpp - the one options struct every entry point takes.
//
// cgltf style: `onnxview::options o{};` (all zero) means the defaults. Fill
// it once and pass it everywhere: parse_model(), parse_as(), make_cursor(),
// verify(), print_text(), print_json(), check_model(), mapped_file::open(),
// external_data_resolver::create() and model_file::open() each read the
// members their documentation names and ignore the others. Every limit has
// its own name: a message's nesting (max_message_depth) is not a graph's
// (max_graph_depth).
//
// The vocabulary the members use (how a file is read, what the caller will
// read of it, file and memory callbacks) is declared here too, so that this
// header, like error.hpp, depends on nothing but the standard library.
#ifndef ONNXVIEW_OPTIONS_HPP
#define ONNXVIEW_OPTIONS_HPP

#include <cstddef>
#include <cstdint>

namespace onnxview {

// How a path is turned into bytes.
enum class open_mode : std::uint8_t {
    automatic = 0,  // map; if the system cannot map this file, read it into memory
    map,            // map, or fail
    read,           // always read into one heap buffer (a private copy immune to truncation)
};

// Access-pattern hints, passed to madvise / posix_fadvise where they exist
// and ignored elsewhere. They change speed, never results.
enum class access_hint : std::uint8_t {
    normal = 0,
    sequential,  // read front to back once (a parse pass): more read-ahead
    random,      // scattered tensor reads: less read-ahead
    willneed,    // start reading these pages now
    dontneed,    // these pages may be dropped (they are read back on access)
};

// What the caller will read of a mapped model. A hint: it changes how much
// the system reads ahead from disk, never what is read.
enum class model_reads : std::uint8_t {
    everything = 0,  // the system's default read-ahead
    // The graph, not the weights: model_file::open() applies
    // advise_metadata_reads (onnxview/metadata_reads.hpp; this replaces
    // file_hint), which prefetches the metadata it finds by the model's
    // structure and advises random access elsewhere, so a cold page fault
    // on a tensor's header does not read the weights around it. tensor()
    // and sparse_tensor() turn read-ahead back on for the bytes of the
    // tensor they read. Files under metadata_read_limits::whole_below
    // (4 MiB) are prefetched whole; files already in the page cache get no
    // advice. Files of metadata_read_limits::copy_from (64 MiB) or more go
    // through copy_metadata_pages instead (unless drop_verified_pages): the
    // pages the metadata lies in become private copies, so that reading
    // tensor headers does not map the weights around them.
    metadata,
};

// Caller-supplied file access, cgltf style: function pointers plus a
// user_data pointer; no global state. `map` is tried first when set, then
// `read_whole`. Each returns 0 on success or a nonzero errno-like code (kept
// in error::sys_errno of the callback_failed error). On success *data/*size
// describe the whole file, which must stay readable and unchanged until
// `release` is called with the same values (release may be null when the
// bytes need no freeing).
//
// `supply`, tried before the others when set, gives a file whose bytes
// arrive on demand (file.hpp, mapped_file::supplied: a remote file's
// external data): its memory, size and supplier, which owns the memory and
// is released through supplier->release (not `release`).
struct file_supplier;
struct file_callbacks {
    int (*map)(void* user_data, const char* path, const void** data, std::uint64_t* size) = nullptr;
    int (*read_whole)(void* user_data, const char* path, const void** data, std::uint64_t* size) = nullptr;
    void (*release)(void* user_data, const void* data, std::uint64_t size) = nullptr;
    void* user_data = nullptr;
    int (*supply)(void* user_data, const char* path, const void** data, std::uint64_t* size,
                  const file_supplier** supplier) = nullptr;
};

// Where the library's heap memory comes from, cgltf style. Used only when
// both functions are set; otherwise malloc and free. It serves heap copies
// of files (mapped_file, the external-data resolver), the resolver's tables
// and paths, shared_file's block, and the checker's name sets, paths and
// messages. Views, cursors, verify() and the printers allocate nothing.
// `allocate` returns null when it cannot: the file layer then fails with
// out_of_memory; check_model(), whose standard containers cannot take that
// answer, throws std::bad_alloc (aborts where exceptions are disabled).
// `deallocate` gets back the pointer with the size and alignment it was
// asked for.
struct allocator {
    void* (*allocate)(void* user_data, std::size_t size, std::size_t alignment) = nullptr;
    void (*deallocate)(void* user_data, void* ptr, std::size_t size, std::size_t alignment) = nullptr;
    void* user_data = nullptr;
};

struct options {
    // --- Reading messages (views, cursors, verify(), printers, checker)
    // Deepest message nesting accepted (root = 0). 0: 100, libprotobuf's
    // default, which also bounds subgraph and TypeProto nesting; larger than
    // 65535: 65535 (wire::effective_max_depth).
    std::uint32_t max_message_depth = 0;
    // verify() and the printers: the schema of an ONNX release
    // (schema::release(1, 12, 0)), whose newer fields and enum values are
    // unknown fields, as for a protoc built with that release's onnx.proto.
    // 0: the newest schema, the one the views read.
    std::uint32_t release = 0;

    // verify(): called as the walk goes, with each run of at least 4 MiB of
    // the bytes it has passed, in order: the moment for a caller that maps
    // a large file to drop those pages, so that verifying any model keeps
    // the resident set small (model_file::open does it with
    // drop_verified_pages). The walk may read some of them again (merged
    // messages). May be null.
    void (*verified)(void* user, const char* data, std::size_t size) = nullptr;
    void* verified_user = nullptr;

    // --- Printing
    // Print at most this many bytes of each string/bytes value, followed by
    // a `# ... N bytes elided` comment. NOT protoc-identical. 0: everything.
    std::uint64_t max_printed_bytes = 0;

    // --- Checking (check_model)
    // Deepest subgraph nesting accepted (main graph = 0). 0: 32.
    std::uint32_t max_graph_depth = 0;
    // Stop after this many findings (check_result::truncated). 0: 1000.
    std::uint32_t max_findings = 0;
    // Report errors only, no warnings.
    bool errors_only = false;

    // --- The model file (mapped_file::open, model_file::open)
    open_mode file_mode = open_mode::automatic;
    access_hint file_hint = access_hint::normal;  // applied to the whole file after opening
    // Files smaller than this are read into a heap buffer instead of mapped
    // (0: never). A copy costs one allocation; it avoids a page-rounded
    // mapping and makes the bytes immune to later truncation of the file.
    std::uint64_t file_copy_below = 0;
    // model_file::open: verify() the whole model before returning, so that no
    // view made from model() meets a malformed byte. Without it open() reads
    // the ModelProto's own fields only, and nested messages are checked when
    // their views are made.
    bool verify = false;
    // model_file::open: a file that is read but does not parse (or, with
    // `verify`, verify) as a ModelProto still opens: model() is then empty,
    // model_error() says why, and bytes() stay available. Without it open()
    // returns that error.
    bool keep_malformed = false;
    model_reads reads = model_reads::everything;  // model_file::open
    // model_file::open with `verify` of a mapped file: the pages verify()
    // has passed are dropped from the mapping as it goes (MADV_DONTNEED;
    // the page cache keeps them, and they are mapped again when read), so
    // the resident set stays small whatever the model's size and tensor
    // count. For streaming jobs (onnxview pack and edit); readers that go
    // on to read most of the model fault its pages in again.
    bool drop_verified_pages = false;
    // Mapped files (the model file and the first 64 mapped external files)
    // keep their descriptor open, so that mapped_file::read_at copies
    // payload bytes with pread instead of touching the mapping
    // (model_file::file_holding finds the file): for jobs that stream every
    // weight once (onnxview hash and diff). One descriptor per such file
    // while it is open; POSIX only (elsewhere read_at copies from the
    // mapping).
    bool keep_descriptor = false;

    // --- External data (external_data_resolver, model_file, check_model)
    // External data is resolved in the directory of this file. model_file
    // fills it in with the model's own path when it is null; check_model
    // without it (nor external_base_dir) warns of external tensors and opens
    // nothing.
    const char* model_path = nullptr;
    const char* external_base_dir = nullptr;         // wins over model_path
    const file_callbacks* external_files = nullptr;  // open through these instead (external_data.hpp)
    std::uint32_t max_external_files = 0;            // 0: 4096
    std::uint64_t max_external_bytes = 0;            // 0: no limit (sum of opened file sizes)
    // Smaller external files are read, not mapped. 0: 64 KiB; 1: map all.
    std::uint64_t external_copy_below = 0;
    bool allow_hard_links = false;                 // false: files with st_nlink > 1 are refused
    bool verify_checksum = false;                  // true: check `checksum` (SHA-1, 40 hex digits)
    access_hint external_hint = access_hint::normal;  // passed to each mapped external file

    // --- Memory (every entry point that allocates)
    allocator memory;
};

}  // namespace onnxview

#endif  // ONNXVIEW_OPTIONS_HPP
