// Generates the Rust messages from proto/rowkey.proto with the pure-Rust protobuf parser
// (no protoc needed on the build machine).
fn main() {
    protobuf_codegen::Codegen::new()
        .pure()
        .include("proto")
        .input("proto/rowkey.proto")
        .cargo_out_dir("proto")
        .run_from_script();
    println!("cargo:rerun-if-changed=proto/rowkey.proto");
}
