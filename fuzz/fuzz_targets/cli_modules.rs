// Included by the `cli_*` targets: the CLI's modules, at the crate root where they
// refer to each other as `crate::...`.

#[path = "../../cli/src/args.rs"]
mod args;
#[path = "../../cli/src/bounds.rs"]
mod bounds;
#[path = "../../cli/src/check.rs"]
mod check;
#[path = "../../cli/src/convert.rs"]
mod convert;
#[path = "../../cli/src/docs.rs"]
mod docs;
#[path = "../../cli/src/forms.rs"]
mod forms;
#[path = "../../cli/src/generate.rs"]
mod generate;
#[path = "../../cli/src/input.rs"]
mod input;
#[path = "../../cli/src/inspect.rs"]
mod inspect;
#[path = "../../cli/src/lines.rs"]
mod lines;
#[path = "../../cli/src/manuals.rs"]
mod manuals;
#[path = "../../cli/src/output.rs"]
mod output;
#[path = "../../cli/src/time.rs"]
mod time;
#[path = "../../cli/src/usage.rs"]
mod usage;
