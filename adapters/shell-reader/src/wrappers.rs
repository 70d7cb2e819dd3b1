//! Commands that run another command (`sudo`, `env`, `nice`, ...): skipping them and their
//! options to find the command that really writes.

use super::effect::{Effect, NOTHING, Target, operands};
use super::lexer::Word;
use super::options::{OptionSpec, leading_options, parse};
use super::unreadable::Unreadable;

/// A command that runs the command named after its own options.
pub struct Wrapper {
    pub name: &'static str,
    spec: OptionSpec,
    /// Operands before the command (`timeout DURATION cmd`).
    positionals: usize,
}

pub enum Skip {
    /// The wrapped command starts this many words into the wrapper's arguments.
    To(usize),
    Done(Effect),
}

pub const WRAPPERS: [Wrapper; 18] = [
    Wrapper {
        name: "setsid",
        spec: OptionSpec::NONE,
        positionals: 0,
    },
    Wrapper {
        name: "ionice",
        spec: OptionSpec {
            short_values: "cnp",
            long_values: &["class", "classdata", "pid", "pgid", "uid"],
        },
        positionals: 0,
    },
    Wrapper {
        name: "fakeroot",
        spec: OptionSpec {
            short_values: "isl",
            long_values: &["lib", "faked"],
        },
        positionals: 0,
    },
    Wrapper {
        name: "nocache",
        spec: OptionSpec::NONE,
        positionals: 0,
    },
    Wrapper {
        name: "unbuffer",
        spec: OptionSpec::NONE,
        positionals: 0,
    },
    Wrapper {
        name: "busybox",
        spec: OptionSpec::NONE,
        positionals: 0,
    },
    Wrapper {
        name: "pkexec",
        spec: OptionSpec {
            short_values: "",
            long_values: &["user"],
        },
        positionals: 0,
    },
    Wrapper {
        name: "sudo",
        spec: OptionSpec {
            short_values: "ugphCDrtTUR",
            long_values: &[
                "user",
                "group",
                "host",
                "prompt",
                "close-from",
                "chdir",
                "role",
                "type",
                "command-timeout",
                "other-user",
                "chroot",
            ],
        },
        positionals: 0,
    },
    Wrapper {
        name: "doas",
        spec: OptionSpec {
            short_values: "uC",
            long_values: &[],
        },
        positionals: 0,
    },
    Wrapper {
        name: "command",
        spec: OptionSpec::NONE,
        positionals: 0,
    },
    Wrapper {
        name: "builtin",
        spec: OptionSpec::NONE,
        positionals: 0,
    },
    Wrapper {
        name: "exec",
        spec: OptionSpec {
            short_values: "a",
            long_values: &[],
        },
        positionals: 0,
    },
    Wrapper {
        name: "nohup",
        spec: OptionSpec::NONE,
        positionals: 0,
    },
    Wrapper {
        name: "time",
        spec: OptionSpec {
            short_values: "fo",
            long_values: &["format", "output"],
        },
        positionals: 0,
    },
    Wrapper {
        name: "nice",
        spec: OptionSpec {
            short_values: "n",
            long_values: &["adjustment"],
        },
        positionals: 0,
    },
    Wrapper {
        name: "env",
        spec: OptionSpec {
            short_values: "uCS",
            long_values: &["unset", "chdir", "split-string"],
        },
        positionals: 0,
    },
    Wrapper {
        name: "timeout",
        spec: OptionSpec {
            short_values: "sk",
            long_values: &["signal", "kill-after"],
        },
        positionals: 1,
    },
    Wrapper {
        name: "stdbuf",
        spec: OptionSpec {
            short_values: "ioe",
            long_values: &["input", "output", "error"],
        },
        positionals: 0,
    },
];

impl Wrapper {
    pub fn skip(&self, args: &[Word], extra: &mut Vec<Target>) -> Skip {
        let n = leading_options(args, &self.spec);
        let options = parse(&args[..n], &self.spec);
        match self.name {
            // `command -v rm` only asks where `rm` is.
            "command" if options.has_short('v') || options.has_short('V') => {
                return Skip::Done(NOTHING);
            }
            "sudo" if options.has_short('e') || options.has_long("edit") => {
                return Skip::Done(operands(&args[n..], &OptionSpec::NONE));
            }
            // The command would run in another directory, or from a string split at runtime.
            "sudo" if options.has_short('D') || options.has_long("chdir") => {
                return Skip::Done(Effect::Unknown(Unreadable::wrapper("sudo --chdir")));
            }
            "env" if options.has_short('C') || options.has_long("chdir") => {
                return Skip::Done(Effect::Unknown(Unreadable::wrapper("env --chdir")));
            }
            "env" if options.has_short('S') || options.has_long("split-string") => {
                return Skip::Done(Effect::Unknown(Unreadable::dynamic_script("env -S")));
            }
            "time" => extra.extend(options.value_of('o', "output").and_then(Target::from_value)),
            _ => {}
        }
        let mut next = n + self.positionals;
        if self.name == "env" {
            // env reads `NAME=value` at runtime, so quoting does not matter there.
            while args
                .get(next)
                .is_some_and(|w| w.text.contains('=') && !w.text.starts_with('='))
            {
                next += 1;
            }
        }
        Skip::To(next)
    }
}
