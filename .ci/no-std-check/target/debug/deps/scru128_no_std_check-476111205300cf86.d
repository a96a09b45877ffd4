/work/main/.ci/no-std-check/target/debug/deps/scru128_no_std_check-476111205300cf86.d: src/lib.rs

/work/main/.ci/no-std-check/target/debug/deps/libscru128_no_std_check-476111205300cf86.a: src/lib.rs

src/lib.rs:
