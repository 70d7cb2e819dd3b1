//! The parts of an adapter crate's entry point that are the same for every shipped client,
//! generated so that only what differs is written in the adapter.
//!
//! [`shipped_adapter!`](macro@crate::shipped_adapter) embeds the crate's `adapter.json`,
//! `certification.json` and the evidence table its build script generated from it
//! ([`crate::certification::compile`]), and joins them with the behaviour.
//! [`delegate_behaviour!`](macro@crate::delegate_behaviour) writes, inside
//! `impl AdapterBehaviour`, the methods every client delegates the same way: installation
//! to a
//! [`HookFileClient`](crate::install_layout::HookFileClient), normalisation, deny and
//! inject to the adapter's own functions, context rendering to the shared projector, and
//! the guard accessors to the adapter's tool tables.

/// Paths the generated code names without making adapter crates depend on them.
#[doc(hidden)]
pub mod __private {
    pub use serde_json::Value;
}

/// Defines `pub fn define()` and `pub fn adapter()` for the adapter crate it is invoked in,
/// from the `adapter.json` and `certification.json` at the crate's root:
/// `acc_sdk::shipped_adapter!(ID, Behaviour);`. The crate's `build.rs` must call
/// [`build_script`](crate::certification::compile::build_script), which validates the
/// evidence and writes the table included here.
#[macro_export]
macro_rules! shipped_adapter {
    ($id:expr, $behaviour:expr $(,)?) => {
        /// Joins the embedded manifest and evidence with the behaviour, refusing any
        /// capability the evidence does not back.
        pub fn define()
        -> ::core::result::Result<$crate::define::Adapter, $crate::error::DefineError> {
            $crate::define::Adapter::from_compiled(
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/adapter.json")),
                __ACC_EVIDENCE,
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/certification.json")),
                ::std::boxed::Box::new($behaviour),
            )
        }

        /// The shipped adapter, its declaration read and checked when first used
        /// (`acc_sdk::define::Adapter::deferred`); `define()` checks it at once. A refusal
        /// is a bug in this crate's own files.
        pub fn adapter() -> $crate::define::Adapter {
            $crate::define::Adapter::deferred(
                $id,
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/adapter.json")),
                __ACC_EVIDENCE,
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/certification.json")),
                ::std::boxed::Box::new($behaviour),
            )
        }

        #[doc(hidden)]
        static __ACC_EVIDENCE: &[$crate::certification::EvidenceEntry] =
            include!(concat!(env!("OUT_DIR"), "/evidence_table.rs"));
    };
}

/// Writes the delegating methods of `impl AdapterBehaviour`. `normalize` names a function of
/// the payload alone, for clients that name the event in the payload; `normalize_with_args`
/// one that also reads the hook command's arguments. The guards are optional. Every
/// shipped adapter's `lib.rs` invokes it, in this order:
///
/// ```text
/// impl AdapterBehaviour for Behaviour {
///     acc_sdk::delegate_behaviour! {
///         install: install::Install,
///         normalize: normalize::normalize,
///         deny: outcomes::deny,
///         inject: outcomes::inject,
///         guard_write: tools::WRITE,
///         guard_shell: tools::SHELL,
///     }
/// }
/// ```
#[macro_export]
macro_rules! delegate_behaviour {
    (@normalize normalize $normalize:path) => {
        /// The client names the event in the payload, so `args` are not read.
        fn normalize_hook(
            &self,
            payload: &$crate::behaviour::__private::Value,
            _args: &[::std::string::String],
        ) -> ::core::result::Result<$crate::event::NormalizedEvent, $crate::event::NormalizeError>
        {
            $normalize(payload)
        }
    };
    (@normalize normalize_with_args $normalize:path) => {
        /// The payload does not name the event; the hook command's arguments do.
        fn normalize_hook(
            &self,
            payload: &$crate::behaviour::__private::Value,
            args: &[::std::string::String],
        ) -> ::core::result::Result<$crate::event::NormalizedEvent, $crate::event::NormalizeError>
        {
            $normalize(payload, args)
        }
    };
    (
        install: $install:expr,
        $normalize_key:ident: $normalize:path,
        deny: $deny:path,
        inject: $inject:path
        $(, guard_write: $write:expr)?
        $(, guard_shell: $shell:expr)?
        $(,)?
    ) => {
        fn detect(&self, ctx: &$crate::install::InstallContext) -> $crate::install::Detection {
            $crate::install_layout::detect(&$install, ctx)
        }

        fn plan_install(
            &self,
            ctx: &$crate::install::InstallContext,
        ) -> ::core::result::Result<$crate::install::InstallPlan, $crate::adapter::AdapterError>
        {
            $crate::install_layout::plan(&$install, ctx)
        }

        fn install(
            &self,
            ctx: &$crate::install::InstallContext,
        ) -> ::core::result::Result<$crate::install::InstallReport, $crate::adapter::AdapterError>
        {
            $crate::install_layout::install(&$install, ctx)
        }

        fn uninstall(
            &self,
            ctx: &$crate::install::InstallContext,
            keep: &[::std::path::PathBuf],
        ) -> ::core::result::Result<$crate::install::InstallReport, $crate::adapter::AdapterError>
        {
            $crate::install_layout::uninstall(&$install, ctx, keep)
        }

        fn doctor(&self, ctx: &$crate::install::InstallContext) -> $crate::install::DoctorReport {
            $crate::install_layout::doctor(&$install, ctx)
        }

        $crate::delegate_behaviour!(@normalize $normalize_key $normalize);

        fn render_context_result(
            &self,
            input: &$crate::context::ContextInput,
            budget_bytes: usize,
        ) -> $crate::context::ContextResult {
            $crate::projector::project_context_result(input, budget_bytes)
        }

        fn renders_with_the_projector(&self) -> bool {
            true
        }

        fn deny_outcome(
            &self,
            _event: &$crate::event::NormalizedEvent,
            reason: &str,
        ) -> $crate::outcome::HookOutcome {
            $deny(reason)
        }

        fn inject_outcome(
            &self,
            event: &$crate::event::NormalizedEvent,
            text: &str,
        ) -> $crate::outcome::HookOutcome {
            $inject(event, text)
        }

        $(
            fn guard_write(&self) -> ::core::option::Option<&dyn $crate::adapter::ToolGuard> {
                ::core::option::Option::Some(&$write)
            }
        )?

        $(
            fn guard_shell(&self) -> ::core::option::Option<&dyn $crate::adapter::ToolGuard> {
                ::core::option::Option::Some(&$shell)
            }
        )?
    };
}
