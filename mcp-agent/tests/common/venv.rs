//! Python packages a test needs, pinned with every dependency in a
//! requirements file and installed with `--no-deps` into a venv the first
//! time, and again only when what the venv was installed from changes
//! (into a cleared venv, so nothing of an older install stays). A lock
//! file beside the venv is held while checking and installing, so test
//! threads and processes that start at once install one after another.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

/// How one venv is installed.
pub struct Venv<'a> {
    /// The requirements file (exact versions, every dependency).
    pub requirements: PathBuf,
    /// Where the venv lives.
    pub path: PathBuf,
    /// Variables for pip (build flags); they are part of the stamp.
    pub env: &'a [(&'a str, &'a str)],
    /// pip options besides `--no-deps -r FILE`.
    pub pip_args: &'a [&'a str],
    /// What a failed install needs, for its message.
    pub needs: &'a str,
}

impl Venv<'_> {
    /// The venv's Python, with the pinned packages installed.
    pub fn python(&self) -> PathBuf {
        if let Some(parent) = self.path.parent() {
            fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
        }
        let lock_path = self.path.with_extension("lock");
        let lock = File::create(&lock_path)
            .and_then(|file| file.lock().map(|()| file))
            .unwrap_or_else(|e| panic!("cannot open and lock {}: {e}", lock_path.display()));
        let requirements = fs::read_to_string(&self.requirements)
            .unwrap_or_else(|e| panic!("{}: {e}", self.requirements.display()));
        let mut installed = String::new();
        for (name, value) in self.env {
            installed.push_str(&format!("{name}={value}\n"));
        }
        installed.push_str(&requirements);
        let stamp = self.path.join("installed-requirements.txt");
        if fs::read_to_string(&stamp).ok().as_deref() != Some(installed.as_str()) {
            run(
                Command::new("python3")
                    .args(["-m", "venv", "--clear"])
                    .arg(&self.path),
                "python3 -m venv (needs Python 3 on PATH with its venv module; \
                 on Debian and Ubuntu the python3-venv package)",
            );
            let mut pip = Command::new(self.path.join("bin/pip"));
            pip.args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
            ])
            .args(self.pip_args)
            .arg("-r")
            .arg(&self.requirements)
            .envs(self.env.iter().copied());
            run(
                &mut pip,
                &format!(
                    "pip install -r {} (needs the PyPI registry once{})",
                    self.requirements.display(),
                    self.needs
                ),
            );
            fs::write(&stamp, &installed).expect("the install is stamped");
        }
        drop(lock);
        self.path.join("bin/python")
    }
}

/// Runs `command`; a failure names `what` it needed.
pub fn run(command: &mut Command, what: &str) {
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(status.success(), "{what}: failed with {status}");
}

/// `tests/NAME` of this crate.
pub fn tests_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}
