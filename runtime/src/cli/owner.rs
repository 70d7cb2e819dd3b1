//! Which session a command acts as: `--session` + `--generation`, else `ACC_SESSION` +
//! `ACC_GENERATION`. Always both or neither; never inferred.

use super::args::OwnerArgs;
use crate::core::Owner;
use crate::env::Env;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{Generation, SessionId};

fn pair(session: Option<&str>, generation: Option<&str>, source: &str) -> Result<Option<Owner>> {
    match (session, generation) {
        (Some(s), Some(g)) => Ok(Some(Owner::new(
            SessionId::parse(s)?,
            Generation::parse(g)?,
        ))),
        (None, None) => Ok(None),
        _ => Err(AccError::new(
            ErrorCode::CallerIdentityUnresolved,
            format!("{source} must be given together"),
        )),
    }
}

/// The owner, if one was given.
pub fn optional(flags: &OwnerArgs, env: &Env) -> Result<Option<Owner>> {
    if let Some(o) = pair(
        flags.session.as_deref(),
        flags.generation.as_deref(),
        "--session and --generation",
    )? {
        return Ok(Some(o));
    }
    pair(
        env.get("ACC_SESSION"),
        env.get("ACC_GENERATION"),
        "ACC_SESSION and ACC_GENERATION",
    )
}

/// The owner, or a usage error explaining how to give one.
pub fn required(flags: &OwnerArgs, env: &Env) -> Result<Owner> {
    optional(flags, env)?.ok_or_else(|| {
        AccError::new(
            ErrorCode::CallerIdentityUnresolved,
            "this command acts as a session: pass --session and --generation (printed by acc attach) or set ACC_SESSION and ACC_GENERATION",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(s: Option<&str>, g: Option<&str>) -> OwnerArgs {
        OwnerArgs {
            session: s.map(str::to_string),
            generation: g.map(str::to_string),
        }
    }

    #[test]
    fn flags_win_over_environment() {
        let env = Env::new()
            .with("ACC_SESSION", "session_env")
            .with("ACC_GENERATION", "generation_env");
        let o = required(&flags(Some("session_f"), Some("generation_f")), &env).unwrap();
        assert_eq!(o.session.as_str(), "session_f");
        let o = required(&OwnerArgs::default(), &env).unwrap();
        assert_eq!(o.generation.as_str(), "generation_env");
    }

    #[test]
    fn halves_and_absence_are_usage_errors() {
        let half = Env::new().with("ACC_SESSION", "session_env");
        let e = required(&OwnerArgs::default(), &half).unwrap_err();
        assert_eq!(e.code, ErrorCode::CallerIdentityUnresolved);
        assert_eq!(e.exit_code(), 2);
        let e = required(&OwnerArgs::default(), &Env::new()).unwrap_err();
        assert!(e.message.contains("ACC_SESSION"));
        assert!(
            optional(&OwnerArgs::default(), &Env::new())
                .unwrap()
                .is_none()
        );
        assert_eq!(
            required(&flags(Some("a b"), Some("g")), &Env::new())
                .unwrap_err()
                .exit_code(),
            2
        );
    }
}
