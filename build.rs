// Generates the Rust messages from proto/rowkey.proto with the pure-Rust protobuf parser
// (no protoc needed on the build machine). vectors.proto is the format of the cross-language
// test vectors only.
fn main() {
    protobuf_codegen::Codegen::new()
        .pure()
        .include("proto")
        .input("proto/rowkey.proto")
        .input("proto/vectors.proto")
        .cargo_out_dir("proto")
        .run_from_script();
    println!("cargo:rerun-if-changed=proto");
}
