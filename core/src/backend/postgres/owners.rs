//! Owner liveness on a server (DESIGN.md "Operations and recovery"): a
//! lease per handle in the `owners` table, judged by the server's clock.
//!
//! * A handle inserts its row (`epoch` 1, `lease_expires_at = now() +
//!   lease`) at open and a background thread renews it every third of the
//!   lease (`UPDATE ... WHERE epoch = <its epoch>`).
//! * Another handle's recovery pass judges an owner by its lease: alive
//!   while `lease_expires_at > now()`; gone when expired or without a row.
//!   Judging it gone bumps its `epoch` in the same statement, so the stale
//!   owner, should it come back (a paused process, a partitioned machine),
//!   can neither renew its lease nor write: its next write fails with
//!   `Conflict` naming the fence, never adding a second terminal event.
//! * Close deletes the row (the owner is gone, and says so).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use postgres::GenericClient;

use super::Pool;
use crate::error::{Error, Result};

/// The error of a handle whose lease was taken over.
pub(crate) fn fenced_error() -> Error {
    Error::conflict(
        "this handle's owner lease expired and another handle took over its operations (epoch fenced); nothing was written: open the store again",
    )
}

/// This handle's lease and its renewing thread.
pub(crate) struct Lease {
    pub(crate) epoch: i64,
    pool: Pool,
    instance_id: String,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    /// Insert the owner row and start renewing it. Errors: `Io`, `Database`.
    pub(crate) fn start(pool: Pool, instance_id: &str, lease_ms: u64, fenced: Arc<AtomicBool>) -> Result<Lease> {
        let lease_ms = lease_ms.max(100);
        let lease_f = lease_ms as f64;
        let mut c = pool.get()?;
        let epoch: i64 = c
            .query_one(
                "INSERT INTO owners (session_id, instance_id, epoch, lease_expires_at)
                 VALUES ('', $1, 1, now() + $2::float8 * interval '1 millisecond') RETURNING epoch",
                &[&instance_id, &lease_f],
            )?
            .get(0);
        drop(c);
        let (tx, rx) = mpsc::channel::<()>();
        let (p, id) = (pool.clone(), instance_id.to_string());
        let thread = std::thread::Builder::new()
            .name("sessiondb-lease".into())
            .spawn(move || {
                let every = Duration::from_millis((lease_ms / 3).max(10));
                while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(every) {
                    let Ok(mut c) = p.get() else { continue };
                    match c.execute(
                        "UPDATE owners SET lease_expires_at = now() + $3::float8 * interval '1 millisecond'
                         WHERE session_id = '' AND instance_id = $1 AND epoch = $2",
                        &[&id, &epoch, &lease_f],
                    ) {
                        Ok(0) => {
                            fenced.store(true, Ordering::SeqCst);
                            return;
                        }
                        Ok(_) | Err(_) => {}
                    }
                }
            })
            .map_err(|e| Error::io("starting the lease renewal thread", e))?;
        Ok(Lease { epoch, pool, instance_id: instance_id.to_string(), stop: Some(tx), thread: Some(thread) })
    }

    /// Stop renewing and delete the owner row (only our epoch's).
    pub(crate) fn release(mut self) {
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Ok(mut c) = self.pool.get() {
            let _ = c.execute("DELETE FROM owners WHERE session_id = '' AND instance_id = $1 AND epoch = $2", &[&self.instance_id, &self.epoch]);
        }
    }
}

/// Inside a write transaction: `held` tells whether this handle's epoch is
/// still the stored one; if not (its lease was taken over), remember it
/// and fail with the fence error.
pub(crate) fn fence_unless(held: bool, fenced: &AtomicBool) -> Result<()> {
    if !held {
        fenced.store(true, Ordering::SeqCst);
        return Err(fenced_error());
    }
    Ok(())
}

/// Is `instance_id`'s lease still running (server time)? An owner judged
/// gone is fenced in the same statement (its epoch bumped). An error
/// reading the table counts as alive: nothing is taken over on a doubt.
pub(crate) fn is_alive_or_fence(c: &mut impl GenericClient, instance_id: &str) -> bool {
    let fenced = c.query_opt(
        "UPDATE owners SET epoch = epoch + 1
         WHERE session_id = '' AND instance_id = $1 AND lease_expires_at <= now() RETURNING epoch",
        &[&instance_id],
    );
    match fenced {
        Ok(Some(_)) => false,
        Ok(None) => match c.query_opt("SELECT lease_expires_at > now() FROM owners WHERE session_id = '' AND instance_id = $1", &[&instance_id]) {
            Ok(Some(r)) => r.get(0),
            Ok(None) => false,
            Err(_) => true,
        },
        Err(_) => true,
    }
}

/// Delete owner rows whose lease expired long ago (ten leases of the
/// default length) and that own no open operation.
pub(crate) fn sweep(c: &mut impl GenericClient, _timeout_ms: u64) {
    let _ = c.execute(
        "DELETE FROM owners o WHERE o.session_id = '' AND o.lease_expires_at < now() - $1::float8 * interval '1 millisecond'
           AND NOT EXISTS (SELECT 1 FROM open_operations p WHERE p.owner = o.instance_id)",
        &[&((super::DEFAULT_LEASE_MS * 10) as f64)],
    );
}
