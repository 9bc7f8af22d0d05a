// Stands in for wire_crosscheck when protoc or libprotobuf is missing: says
// so, and exits with 77, which meson reports as a skipped test.
#include <cstdio>

int main() {
    std::puts("SKIPPED: protoc or libprotobuf not found; the libprotobuf cross-check did not run");
    return 77;
}
