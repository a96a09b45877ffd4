/work/main/.ci/no-std-check/target/debug/deps/scru128-a151c12506cf57a4.d: /work/main/src/lib.rs /work/main/src/encoded.rs /work/main/src/error.rs /work/main/src/generator.rs /work/main/src/hex.rs /work/main/src/id.rs /work/main/src/sources.rs /work/main/src/external.rs /work/main/src/../docs/format.md /work/main/src/../docs/reliability.md

/work/main/.ci/no-std-check/target/debug/deps/libscru128-a151c12506cf57a4.rlib: /work/main/src/lib.rs /work/main/src/encoded.rs /work/main/src/error.rs /work/main/src/generator.rs /work/main/src/hex.rs /work/main/src/id.rs /work/main/src/sources.rs /work/main/src/external.rs /work/main/src/../docs/format.md /work/main/src/../docs/reliability.md

/work/main/.ci/no-std-check/target/debug/deps/libscru128-a151c12506cf57a4.rmeta: /work/main/src/lib.rs /work/main/src/encoded.rs /work/main/src/error.rs /work/main/src/generator.rs /work/main/src/hex.rs /work/main/src/id.rs /work/main/src/sources.rs /work/main/src/external.rs /work/main/src/../docs/format.md /work/main/src/../docs/reliability.md

/work/main/src/lib.rs:
/work/main/src/encoded.rs:
/work/main/src/error.rs:
/work/main/src/generator.rs:
/work/main/src/hex.rs:
/work/main/src/id.rs:
/work/main/src/sources.rs:
/work/main/src/external.rs:
/work/main/src/../docs/format.md:
/work/main/src/../docs/reliability.md:
