//! `mcp-host task get|wait|cancel SERVER TASK_ID`: a task started earlier
//! (by a call this command made, or by another host), looked at, followed
//! to its end, or stopped.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::Subcommand;
use serde_json::json;

use super::{print, print_result, progress_bar};
use mcp_host::client::{CallOptions, Client, Progress};
use mcp_host::{Host, ServerId};

/// What to do with a task.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Shows where the task is: its status, and its result, error or
    /// input requests when it has them.
    #[command(after_help = super::example!("mcp-host --config servers.json task get notes 3f2a..."))]
    Get {
        /// The server's id, as configured.
        server: String,
        /// The task's id.
        task_id: String,
    },
    /// Follows the task to its end, answering its input requests at the
    /// terminal, and prints the tool's result. The task keeps running
    /// if this stops early.
    #[command(after_help = super::example!("mcp-host --config servers.json task wait notes 3f2a..."))]
    Wait {
        /// The server's id, as configured.
        server: String,
        /// The task's id.
        task_id: String,
    },
    /// Asks the server to stop the task.
    #[command(after_help = super::example!("mcp-host --config servers.json task cancel notes 3f2a..."))]
    Cancel {
        /// The server's id, as configured.
        server: String,
        /// The task's id.
        task_id: String,
    },
}

async fn client(host: &Host, server: &str) -> Result<Arc<Client>, String> {
    let id = ServerId::new(server).map_err(|e| e.to_string())?;
    host.client(&id)
        .await
        .ok_or_else(|| format!("server `{server}` is not configured or did not connect"))
}

/// Runs one `task` subcommand.
pub(super) async fn run(host: &Host, command: TaskCommand) -> Result<ExitCode, String> {
    match command {
        TaskCommand::Get { server, task_id } => {
            let task = client(host, &server)
                .await?
                .get_task(&task_id)
                .await
                .map_err(|e| e.to_string())?;
            print(&json!(task.accept()));
            Ok(ExitCode::SUCCESS)
        }
        TaskCommand::Cancel { server, task_id } => {
            client(host, &server)
                .await?
                .cancel_task(&task_id)
                .await
                .map_err(|e| e.to_string())?;
            print(&json!({ "server": server, "taskId": task_id, "cancelRequested": true }));
            Ok(ExitCode::SUCCESS)
        }
        TaskCommand::Wait { server, task_id } => {
            let options = CallOptions {
                progress: Some(Arc::new(progress_bar)),
                ..CallOptions::default()
            };
            let result = client(host, &server)
                .await?
                .wait_task(&task_id, &options)
                .await
                .map_err(|e| e.to_string())?;
            Ok(print_result(result))
        }
    }
}

/// The task a call became, as its progress reports show it: the one to
/// cancel when the person interrupts the command.
#[derive(Debug, Clone, Default)]
pub(super) struct Running(Arc<Mutex<Option<(ServerId, String)>>>);

impl Running {
    /// A progress callback that shows each report and keeps the task.
    pub(super) fn watch(&self) -> mcp_host::client::ProgressFn {
        let running = self.clone();
        Arc::new(move |report: Progress| {
            if let Some(task) = &report.task {
                if let Ok(mut slot) = running.0.lock() {
                    *slot = Some((task.origin().clone(), task.accept_ref().task_id.clone()));
                }
            }
            progress_bar(report);
        })
    }

    /// Cancels the task, if the call became one; says so on stderr.
    pub(super) async fn cancel(&self, host: &Host) {
        let Some((server, task_id)) = self.0.lock().ok().and_then(|slot| slot.clone()) else {
            return;
        };
        let Some(client) = host.client(&server).await else {
            return;
        };
        let shown = mcp_host::untrusted::visible(&task_id);
        match client.cancel_task(&task_id).await {
            Ok(()) => eprintln!("\ncancelled task {shown} of server `{server}`"),
            Err(e) => eprintln!("\ncould not cancel task {shown} of server `{server}`: {e}"),
        }
    }
}
