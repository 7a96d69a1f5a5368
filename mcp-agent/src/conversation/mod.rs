//! The loop between the model and the host's tools.
//!
//! - [`offer`]: the tools offered to one provider, sans-IO: schemas
//!   lowered, names within the provider's rules, the budget and the search
//!   tool, and the way back from a model's call to the host's tool.
//! - [`core`]: the books of one conversation, sans-IO: messages, the
//!   ledger of labels, the envelope of server output, tokens and bounds.
//! - [`saved`]: a conversation as it is saved and reopened, sans-IO,
//!   its ledger and envelope nonce whole, so that it keeps its taint.
//! - [`store`]: saved conversations on disk, one private file each,
//!   listed newest first and reopened through [`saved`].
//! - [`run`]: the loop with I/O: [`Agent::turn`] runs one user turn
//!   through the model, the flow policy, the host's gate and the servers.

pub mod core;
pub mod offer;
pub mod run;
pub mod saved;
pub mod store;

pub use self::core::{Bounds, Conversation, Step, Stop};
pub use offer::{Offer, OfferedTool, Refused, Resolved, SearchAnswer, ToolInput};
pub use run::{catalogue, Agent, CallRecord, Event, TurnError, ViewCallError};
pub use saved::{ReopenError, Saved};
pub use store::{BadId, ConversationId, Conversations, Listing, StoreError, Summary};
