//! The generated error mapping of the Kotlin/Swift bindings
//! (`sessiondb_ffi::error`, from bridge/api.rs): the declaration against the
//! core's kinds, and each core error's variant and fields.

use sessiondb::{ContextOverflowBreakdown, Error, ErrorKind};
use sessiondb_ffi::error::DECLARED_KINDS;
use sessiondb_ffi::SessionDbError;

fn sample(kind: ErrorKind) -> Error {
    match kind {
        ErrorKind::RecoveryLocked => Error::RecoveryLocked {
            backend: "b".into(),
            service: "s".into(),
        },
        ErrorKind::KeyMismatch => Error::KeyMismatch {
            backend: "b".into(),
        },
        ErrorKind::KeyStoreUnavailable => Error::KeyStoreUnavailable {
            backend: "b".into(),
            reason: "r".into(),
            remedy: "m".into(),
        },
        ErrorKind::NotFound => Error::not_found("session", "x"),
        ErrorKind::Conflict => Error::conflict("c"),
        ErrorKind::AuthenticationFailed => Error::AuthenticationFailed {
            record: "session:x:name".into(),
        },
        ErrorKind::Corrupt => Error::corrupt("c"),
        ErrorKind::Busy => Error::Busy { timeout_ms: 10, waited_ms: 10 },
        ErrorKind::InvalidInput => Error::invalid("i"),
        ErrorKind::Io => Error::io(
            "step",
            std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        ),
        ErrorKind::Database => Error::Database("d".into()),
        ErrorKind::ContextOverflow => {
            Error::ContextOverflow(Box::new(ContextOverflowBreakdown {
                capacity: 100,
                system: 90,
                pinned: 20,
                recent: 0,
                tool_results: 0,
                other: 0,
                protected_total: 110,
                remedies: vec!["unpin".into()],
            }))
        }
        ErrorKind::Closed => Error::Closed,
        other => panic!("a core error kind without a sample here: {other}"),
    }
}

/// The variant's name as the host sees it (Kotlin class, Swift case with a lower first letter).
fn variant(e: &SessionDbError) -> &'static str {
    match e {
        SessionDbError::RecoveryLocked { .. } => "RecoveryLocked",
        SessionDbError::KeyMismatch { .. } => "KeyMismatch",
        SessionDbError::KeyStoreUnavailable { .. } => "KeyStoreUnavailable",
        SessionDbError::NotFound { .. } => "NotFound",
        SessionDbError::Conflict { .. } => "Conflict",
        SessionDbError::AuthenticationFailed { .. } => "AuthenticationFailed",
        SessionDbError::Corrupt { .. } => "Corrupt",
        SessionDbError::Busy { .. } => "Busy",
        SessionDbError::InvalidInput { .. } => "InvalidInput",
        SessionDbError::Io { .. } => "Io",
        SessionDbError::Database { .. } => "Database",
        SessionDbError::ContextOverflow { .. } => "ContextOverflow",
        SessionDbError::Closed { .. } => "Closed",
        other => panic!("a variant without a name here: {other:?}"),
    }
}

/// bridge/api.rs's error declaration lists the core's kinds, no more, no
/// fewer, in `ErrorKind::ALL` order (the order of the Kotlin/Swift variants).
#[test]
fn the_declaration_is_error_kind_all_in_order() {
    let declared: Vec<&str> = DECLARED_KINDS.iter().map(|k| k.name()).collect();
    let core: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(declared, core);
}

#[test]
fn every_core_error_kind_maps_to_the_variant_of_the_same_name() {
    for kind in ErrorKind::ALL {
        let core = sample(kind);
        let message = core.to_string();
        let mapped = SessionDbError::from(core);
        assert_eq!(variant(&mapped), kind.name());
        assert_eq!(mapped.to_string(), message, "detail is the core's message");
    }
}

#[test]
fn overflow_breakdown_and_io_kind_are_fields() {
    match SessionDbError::from(sample(ErrorKind::ContextOverflow)) {
        SessionDbError::ContextOverflow {
            system,
            pinned,
            protected_total,
            remedies,
            ..
        } => {
            assert_eq!((system, pinned, protected_total), (90, 20, 110));
            assert_eq!(remedies, vec!["unpin".to_string()]);
        }
        other => panic!("{other:?}"),
    }
    match SessionDbError::from(sample(ErrorKind::Io)) {
        SessionDbError::Io { step, os_kind, .. } => assert_eq!(
            (step.as_str(), os_kind.as_str()),
            ("step", "PermissionDenied")
        ),
        other => panic!("{other:?}"),
    }
}
