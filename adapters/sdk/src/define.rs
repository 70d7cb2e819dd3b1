//! Joining the declaration and the behaviour: [`define_adapter`] is the only way to obtain a
//! usable [`Adapter`], and [`AdapterDir`] reads a declaration from a directory for tools
//! that run on adapters without compiling them.
//!
//! The checks run in a fixed order so the first refusal is predictable: the manifest's
//! identity, the certification file, variants, the evidence's capabilities and clients, the
//! removed `certificationFloor`, the native contract and its methods, then each declared
//! capability's backing method and passing evidence of the primary client.

#[cfg(any(test, feature = "testing"))]
pub mod testing;

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::adapter::AdapterBehaviour;
use crate::capabilities::{Capability, CapabilitySet};
use crate::certification::{Certification, EvidenceRows, EvidenceTable, LazyCertification};
use crate::error::{CERTIFICATION_FILE, DefineError, MANIFEST_FILE, Problem, ProblemCode};
use crate::identity::{ProcessTable, ResolvedClient};
use crate::manifest::{self, Manifest};
use crate::native::{self, Eligibility, HandshakeVerdict, NativeDelivery, VersionVerdict};
use crate::resolution::{self, ClientFacts, Verdict};

/// A validated declaration: manifest, evidence and native contract, consistent with each
/// other. Only [`Declaration::check`] builds one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    manifest: Manifest,
    /// What grant resolution and the checks read; the full file only on demand.
    evidence: EvidenceTable,
    certification: LazyCertification,
    native_delivery: Option<NativeDelivery>,
}

/// The method name a true capability needs, when the behaviour may lack it. Lifecycle,
/// context and next-turn capabilities are backed by required trait methods.
fn backing_method(cap: Capability, behaviour: &dyn AdapterBehaviour) -> Option<&'static str> {
    let present = match cap {
        Capability::BeforeRead => behaviour.guard_read().is_some(),
        Capability::BeforeWrite => behaviour.guard_write().is_some(),
        Capability::BeforeShell => behaviour.guard_shell().is_some(),
        Capability::LivePush => behaviour.live_push().is_some(),
        Capability::ReplyRoute => behaviour.reply_route().is_some(),
        _ => true,
    };
    let name = match cap {
        Capability::BeforeRead => "guard_read",
        Capability::BeforeWrite => "guard_write",
        Capability::BeforeShell => "guard_shell",
        Capability::LivePush => "offer_message",
        Capability::ReplyRoute => "route_reply",
        _ => return None,
    };
    (!present).then_some(name)
}

impl Declaration {
    /// Checks a manifest and a certification file together, reporting every problem in
    /// check order. With a behaviour, also its backing and native methods.
    pub fn check(
        manifest_json: &Value,
        certification_json: &Value,
        behaviour: Option<&dyn AdapterBehaviour>,
    ) -> Result<Declaration, Vec<Problem>> {
        let evidence = Certification::from_value(certification_json)
            .map(|c| (c.table(), LazyCertification::parsed(c)));
        Self::check_evidence(manifest_json, evidence, behaviour)
    }

    /// [`Declaration::check`] for a shipped adapter: `evidence` is the table its build script
    /// generated from `certification_json` after validating it with the same rules, so only
    /// the checks against the manifest and the behaviour run here.
    pub fn check_compiled(
        manifest_json: &Value,
        evidence: EvidenceTable,
        certification_json: &'static str,
        behaviour: Option<&dyn AdapterBehaviour>,
    ) -> Result<Declaration, Vec<Problem>> {
        let lazy = LazyCertification::embedded(certification_json);
        Self::check_evidence(manifest_json, Ok((evidence, lazy)), behaviour)
    }

    fn check_evidence(
        manifest_json: &Value,
        evidence: Result<(EvidenceTable, LazyCertification), Vec<Problem>>,
        behaviour: Option<&dyn AdapterBehaviour>,
    ) -> Result<Declaration, Vec<Problem>> {
        let mut problems = Vec::new();
        let head = manifest::read_head(manifest_json)
            .map_err(|p| problems.extend(p))
            .ok();
        let (certification, lazy) = match evidence {
            Ok((table, lazy)) => (Some(table), Some(lazy)),
            Err(p) => {
                problems.extend(p);
                (None, None)
            }
        };
        let primary = head.as_ref().map(|h| {
            h.certification_name
                .clone()
                .unwrap_or_else(|| h.command.clone())
        });
        let variants = match &primary {
            Some(primary) => manifest::read_variants(manifest_json, primary)
                .map_err(|p| problems.extend(p))
                .ok(),
            None => None,
        };
        let clients: Option<Vec<String>> = match (&primary, &variants) {
            (Some(p), Some(v)) => Some(
                std::iter::once(p.clone())
                    .chain(v.iter().map(|v| v.certification_name.clone()))
                    .collect(),
            ),
            _ => None,
        };
        if let (Some(cert), Some(clients), Some(primary)) = (&certification, &clients, &primary) {
            for (i, row) in cert.entries().iter().enumerate() {
                if Capability::parse(&row.capability).is_none() {
                    problems.push(Problem::new(
                        ProblemCode::UnknownCertifiedCapability,
                        CERTIFICATION_FILE,
                        format!("evidence[{i}].capability"),
                        format!("unknown certified capability: {}", row.capability),
                    ));
                }
                if !clients.iter().any(|c| *c == row.client) {
                    problems.push(Problem::new(
                        ProblemCode::EvidenceClientMismatch,
                        CERTIFICATION_FILE,
                        format!("evidence[{i}].client"),
                        format!(
                            "certification evidence client {} does not match {primary}",
                            row.client
                        ),
                    ));
                }
            }
        }
        problems.extend(manifest::read_certification_floor(manifest_json));
        let mut native_delivery = None;
        if let Some(raw) = manifest::native_delivery_raw(manifest_json) {
            if let (Some(cert), Some(clients), Some(primary)) = (&certification, &clients, &primary)
            {
                let names: Vec<&str> = clients.iter().map(String::as_str).collect();
                match native::validate_native_delivery(raw, cert, primary, &names) {
                    Ok(contract) => native_delivery = Some(contract),
                    Err(p) => problems.extend(p),
                }
            }
            if let Some(b) = behaviour
                && b.native_session().is_none()
            {
                for method in ["probe_native_delivery", "bind_native_session"] {
                    problems.push(Problem::new(
                        ProblemCode::NativeRequiresMethod,
                        MANIFEST_FILE,
                        "nativeDelivery",
                        format!("a native delivery contract requires {method}()"),
                    ));
                }
            }
        }
        let capabilities = manifest::read_capabilities(manifest_json)
            .map_err(|p| problems.extend(p))
            .ok();
        if let Some(caps) = &capabilities {
            check_declared(
                caps,
                behaviour,
                certification.as_ref(),
                primary.as_deref(),
                &mut problems,
            );
        }
        match (head, certification, lazy, variants, capabilities) {
            (
                Some(head),
                Some(evidence),
                Some(certification),
                Some(variants),
                Some(capabilities),
            ) if problems.is_empty() => Ok(Declaration {
                manifest: Manifest::assemble(head, variants, capabilities),
                evidence,
                certification,
                native_delivery,
            }),
            _ => Err(problems),
        }
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The whole evidence file, parsed on the first call (a hook never needs it).
    pub fn certification(&self) -> &Certification {
        self.certification.get()
    }

    /// What resolution reads of the evidence.
    pub fn evidence(&self) -> &EvidenceTable {
        &self.evidence
    }

    pub fn native_delivery(&self) -> Option<&NativeDelivery> {
        self.native_delivery.as_ref()
    }

    pub fn primary(&self) -> &str {
        self.manifest.client.primary()
    }

    pub fn capability_evidence(&self, facts: &ClientFacts, cap: Capability) -> Verdict {
        resolution::capability_evidence(&self.manifest, &self.evidence, facts, cap)
    }

    pub fn effective_capabilities(&self, facts: &ClientFacts) -> CapabilitySet {
        resolution::effective_capabilities(&self.manifest, &self.evidence, facts)
    }

    /// Every capability's verdict, in canonical order.
    pub fn explain(&self, facts: &ClientFacts) -> Vec<(Capability, Verdict)> {
        resolution::explain_capabilities(&self.manifest, &self.evidence, facts)
    }

    pub fn evaluate_version_contract(
        &self,
        client_version: Option<&str>,
        protocol: Option<&str>,
    ) -> VersionVerdict {
        native::evaluate_version_contract(
            self.native_delivery(),
            self.primary(),
            client_version,
            protocol,
        )
    }

    pub fn evaluate_native_eligibility(
        &self,
        client_version: Option<&str>,
        probe: Option<&Value>,
    ) -> Result<Eligibility, Problem> {
        native::evaluate_native_eligibility(
            self.native_delivery(),
            self.primary(),
            client_version,
            probe,
        )
    }

    pub fn validate_native_handshake(
        &self,
        client_version: Option<&str>,
        handshake: Option<&Value>,
    ) -> Result<HandshakeVerdict, Problem> {
        native::validate_native_handshake(
            self.native_delivery(),
            self.primary(),
            client_version,
            handshake,
        )
    }
}

/// A true capability needs its backing method and a passing row of the primary client (at
/// any version or platform; a variant's evidence never backs a declaration).
fn check_declared(
    caps: &CapabilitySet,
    behaviour: Option<&dyn AdapterBehaviour>,
    certification: Option<&EvidenceTable>,
    primary: Option<&str>,
    problems: &mut Vec<Problem>,
) {
    for cap in caps.enabled() {
        let field = format!("capabilities.{}", cap.key());
        if let Some(method) = behaviour.and_then(|b| backing_method(cap, b)) {
            problems.push(Problem::new(
                ProblemCode::CapabilityRequiresMethod,
                MANIFEST_FILE,
                field.clone(),
                format!("capability {cap} requires {method}()"),
            ));
        }
        if let (Some(cert), Some(primary)) = (certification, primary)
            && !cert.rows_of(primary, cap.key()).any(|r| r.passed)
        {
            problems.push(Problem::new(
                ProblemCode::CapabilityRequiresEvidence,
                MANIFEST_FILE,
                field,
                format!("capability {cap} requires passing evidence in certification"),
            ));
        }
    }
}

/// A usable adapter: a declaration and the behaviour that backs it.
pub struct Adapter {
    /// Set at construction, or (a shipped adapter's, [`Adapter::deferred`]) when first
    /// asked for.
    declaration: std::sync::OnceLock<Declaration>,
    /// Where a deferred declaration is read from.
    compiled: Option<Compiled>,
    behaviour: Box<dyn AdapterBehaviour>,
}

/// A shipped adapter's embedded files and the evidence table its build script generated.
struct Compiled {
    id: &'static str,
    adapter_json: &'static str,
    evidence: &'static [crate::certification::EvidenceEntry],
    certification_json: &'static str,
}

impl fmt::Debug for Adapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Adapter")
            .field("declaration", self.declaration())
            .finish_non_exhaustive()
    }
}

impl Adapter {
    fn of(declaration: Declaration, behaviour: Box<dyn AdapterBehaviour>) -> Adapter {
        Adapter {
            declaration: std::sync::OnceLock::from(declaration),
            compiled: None,
            behaviour,
        }
    }
}

/// The only way to obtain an [`Adapter`]. Refuses with the first problem in check order.
pub fn define_adapter(
    manifest: &Value,
    certification: &Value,
    behaviour: Box<dyn AdapterBehaviour>,
) -> Result<Adapter, DefineError> {
    match Declaration::check(manifest, certification, Some(behaviour.as_ref())) {
        Ok(declaration) => Ok(Adapter::of(declaration, behaviour)),
        Err(mut problems) => Err(DefineError(problems.remove(0))),
    }
}

impl Adapter {
    /// For adapter crates that embed their JSON with `include_str!`; still goes through
    /// [`define_adapter`].
    pub fn from_embedded(
        adapter_json: &str,
        certification_json: &str,
        behaviour: Box<dyn AdapterBehaviour>,
    ) -> Result<Adapter, DefineError> {
        let manifest =
            manifest::parse_json(MANIFEST_FILE, adapter_json.as_bytes()).map_err(DefineError)?;
        let certification = manifest::parse_json(CERTIFICATION_FILE, certification_json.as_bytes())
            .map_err(DefineError)?;
        define_adapter(&manifest, &certification, behaviour)
    }

    /// For shipped adapters ([`shipped_adapter!`](macro@crate::shipped_adapter)): `evidence`
    /// is the table the crate's build script generated from `certification_json`, so the
    /// file is neither parsed nor validated again unless someone asks for all of it. Every
    /// declared capability is still checked against the evidence.
    pub fn from_compiled(
        adapter_json: &str,
        evidence: &'static [crate::certification::EvidenceEntry],
        certification_json: &'static str,
        behaviour: Box<dyn AdapterBehaviour>,
    ) -> Result<Adapter, DefineError> {
        let declaration = compiled_declaration(
            adapter_json,
            evidence,
            certification_json,
            behaviour.as_ref(),
        )?;
        Ok(Adapter::of(declaration, behaviour))
    }

    /// A shipped adapter whose declaration is read and checked (as [`Adapter::from_compiled`]
    /// does) only when first asked for: a hook answering a tool call from the guard's
    /// snapshot uses only the behaviour, and parsing and checking the manifest was a tenth
    /// of its instructions. The files are the crate's own, and its `define()` (which the
    /// registry's tests call for every shipped adapter) refuses them at once if they are
    /// wrong; should one still be, the first use panics, as `adapter()` did at once.
    pub fn deferred(
        id: &'static str,
        adapter_json: &'static str,
        evidence: &'static [crate::certification::EvidenceEntry],
        certification_json: &'static str,
        behaviour: Box<dyn AdapterBehaviour>,
    ) -> Adapter {
        Adapter {
            declaration: std::sync::OnceLock::new(),
            compiled: Some(Compiled {
                id,
                adapter_json,
                evidence,
                certification_json,
            }),
            behaviour,
        }
    }

    /// The declaration, read and checked now if it was deferred.
    pub fn declaration(&self) -> &Declaration {
        self.declaration.get_or_init(|| {
            let c = self
                .compiled
                .as_ref()
                .expect("an adapter without a declaration is deferred");
            compiled_declaration(
                c.adapter_json,
                c.evidence,
                c.certification_json,
                self.behaviour.as_ref(),
            )
            .unwrap_or_else(|e| panic!("the shipped {} adapter is invalid: {e}", c.id))
        })
    }

    pub fn id(&self) -> &str {
        self.declaration().manifest.id.as_str()
    }

    pub fn manifest(&self) -> &Manifest {
        &self.declaration().manifest
    }

    /// The whole evidence file, parsed on the first call.
    pub fn certification(&self) -> &Certification {
        self.declaration().certification()
    }

    pub fn behaviour(&self) -> &dyn AdapterBehaviour {
        self.behaviour.as_ref()
    }

    pub fn native_delivery(&self) -> Option<&NativeDelivery> {
        self.declaration().native_delivery()
    }

    pub fn effective_capabilities(&self, facts: &ClientFacts) -> CapabilitySet {
        self.declaration().effective_capabilities(facts)
    }

    pub fn capability_evidence(&self, facts: &ClientFacts, cap: Capability) -> Verdict {
        self.declaration().capability_evidence(facts, cap)
    }

    pub fn evaluate_version_contract(
        &self,
        client_version: Option<&str>,
        protocol: Option<&str>,
    ) -> VersionVerdict {
        self.declaration()
            .evaluate_version_contract(client_version, protocol)
    }

    pub fn evaluate_native_eligibility(
        &self,
        client_version: Option<&str>,
        probe: Option<&Value>,
    ) -> Result<Eligibility, Problem> {
        self.declaration()
            .evaluate_native_eligibility(client_version, probe)
    }

    pub fn validate_native_handshake(
        &self,
        client_version: Option<&str>,
        handshake: Option<&Value>,
    ) -> Result<HandshakeVerdict, Problem> {
        self.declaration()
            .validate_native_handshake(client_version, handshake)
    }

    /// [`AdapterBehaviour::is_shared_host`], with a panic in it counting as "no".
    pub fn is_shared_host(&self, entry: &crate::adapter::ProcessEntry) -> bool {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.behaviour().is_shared_host(entry)
        }))
        .unwrap_or(false)
    }

    /// The client process among the hook's ancestors (see [`crate::identity::resolve_client`]).
    pub fn resolve_client(
        &self,
        table: &dyn ProcessTable,
        hook_pid: u32,
    ) -> Option<ResolvedClient> {
        crate::identity::resolve_client(
            table,
            hook_pid,
            &self.declaration().manifest.client,
            self.behaviour(),
        )
    }
}

/// The declaration of a shipped adapter's embedded manifest, checked against its compiled
/// evidence and its behaviour.
fn compiled_declaration(
    adapter_json: &str,
    evidence: &'static [crate::certification::EvidenceEntry],
    certification_json: &'static str,
    behaviour: &dyn AdapterBehaviour,
) -> Result<Declaration, DefineError> {
    let manifest =
        manifest::parse_json(MANIFEST_FILE, adapter_json.as_bytes()).map_err(DefineError)?;
    Declaration::check_compiled(
        &manifest,
        EvidenceTable::compiled(evidence),
        certification_json,
        Some(behaviour),
    )
    .map_err(|mut problems| DefineError(problems.remove(0)))
}

/// A declaration read from an adapter directory, for tools that run on adapters without
/// their Rust code.
#[derive(Debug, Clone)]
pub struct AdapterDir {
    pub dir: PathBuf,
    pub declaration: Declaration,
}

impl AdapterDir {
    /// Reads `adapter.json` and `certification.json` under `dir` and checks them together.
    pub fn load(dir: &Path) -> Result<AdapterDir, Vec<Problem>> {
        let read = |rel: &str| -> Result<Value, Problem> {
            let bytes = std::fs::read(dir.join(rel)).map_err(|e| {
                let code = if e.kind() == std::io::ErrorKind::NotFound {
                    ProblemCode::FileMissing
                } else {
                    ProblemCode::FileUnreadable
                };
                Problem::new(code, rel, "", format!("{rel} cannot be read: {e}"))
            })?;
            manifest::parse_json(rel, &bytes)
        };
        let manifest = read(MANIFEST_FILE);
        let certification = read(CERTIFICATION_FILE);
        let (manifest, certification) = match (manifest, certification) {
            (Ok(m), Ok(c)) => (m, c),
            (m, c) => return Err(m.err().into_iter().chain(c.err()).collect()),
        };
        let declaration = Declaration::check(&manifest, &certification, None)?;
        Ok(AdapterDir {
            dir: dir.to_owned(),
            declaration,
        })
    }
}

#[cfg(test)]
mod tests;
