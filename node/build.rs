//! napi's build setup.
fn main() {
    napi_build::setup();
}
