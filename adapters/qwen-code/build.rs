//! Validates `certification.json` and generates the evidence table `shipped_adapter!`
//! embeds, so a hook resolves grants without parsing the whole file.

fn main() {
    acc_sdk::certification::compile::build_script();
}
