//! The conversion rules every generated host module relies on, written
//! once: `Conv` (a core value as the host's type of a result or record
//! field) and, for records callers pass in, `Back` (the host value as the
//! core's). [`conversions`] writes them into the generated records ahead of
//! the records, so each record's conversion is one `Conv::conv` (or
//! `Back::back`) per field.
//!
//! The shared part (options, lists, maps, sets as ascending lists, shared `Arc`
//! values as copies, borrowed text and paths as strings, the identity on
//! the types a host keeps) is one template; each host adds what its type
//! rules need (DESIGN.md "Same API, four hosts"):
//! - Python: tuples kept as tuples (the pairs and triples of text, the
//!   `(f64, f64)` of seconds), maps kept; `Back` reads a frozen class
//!   by reference (`&self`), naming the field in its `InvalidInput` error.
//! - Node: counts as JS numbers (`i64` saturating on the way out, a core
//!   `f64` as it is; `f64` checked by `crate::records::int` on the way
//!   in), bytes as `Buffer`,
//!   seq-keyed maps with string keys; `Back` takes the JS value by value.
//! - Kotlin/Swift: the core types as they are; seq-keyed maps as their
//!   values in seq order, other maps as `HashMap`, `usize` counts as `u32`;
//!   `Back` (twins a caller passes in) is infallible.

use proc_macro2::TokenStream;
use quote::quote;

use crate::{toks, Host};

/// The shared `Conv` rules (every host).
fn conv() -> TokenStream {
    quote! {
        /// A core value as this host's type of a result or record field: the
        /// rules of sessiondb-bridge (bridge/src/conv.rs), one impl per type.
        pub trait Conv<T> {
            /// Convert.
            fn conv(self) -> T;
        }
        impl<A: Conv<B>, B> Conv<Option<B>> for Option<A> {
            fn conv(self) -> Option<B> {
                self.map(Conv::conv)
            }
        }
        impl<A: Conv<B>, B> Conv<Vec<B>> for Vec<A> {
            fn conv(self) -> Vec<B> {
                self.into_iter().map(Conv::conv).collect()
            }
        }
        /// Sets cross as lists (ascending).
        impl<A: Conv<B>, B> Conv<Vec<B>> for std::collections::BTreeSet<A> {
            fn conv(self) -> Vec<B> {
                self.into_iter().map(Conv::conv).collect()
            }
        }
        /// A value the core shares (`Arc`) as the host's value (a copy).
        impl<A: Clone + Conv<B>, B> Conv<B> for std::sync::Arc<A> {
            fn conv(self) -> B {
                std::sync::Arc::unwrap_or_clone(self).conv()
            }
        }
        impl<K: Ord, A: Conv<B>, B> Conv<std::collections::BTreeMap<K, B>> for std::collections::BTreeMap<K, A> {
            fn conv(self) -> std::collections::BTreeMap<K, B> {
                self.into_iter().map(|(k, v)| (k, v.conv())).collect()
            }
        }
        impl Conv<String> for &str {
            fn conv(self) -> String {
                self.to_owned()
            }
        }
        impl Conv<String> for &std::path::Path {
            fn conv(self) -> String {
                self.to_string_lossy().into_owned()
            }
        }
    }
}

/// The fallible `Back` rules of Python (`by_ref`: `&self`) and Node (`self`).
fn back(by_ref: bool) -> TokenStream {
    let (recv, opt, iter) = match by_ref {
        true => (quote!(&self), quote!(self.as_ref()), quote!(self.iter())),
        false => (quote!(self), quote!(self), quote!(self.into_iter())),
    };
    quote! {
        /// A host value as the core's (the inverse of `Conv`), for records a
        /// caller passes in: `what` names the field in the `InvalidInput` error.
        pub trait Back<C> {
            /// Convert, or say which field is wrong.
            fn back(#recv, what: &str) -> sessiondb::Result<C>;
        }
        impl<A: Back<B>, B> Back<Option<B>> for Option<A> {
            fn back(#recv, what: &str) -> sessiondb::Result<Option<B>> {
                #opt.map(|a| a.back(what)).transpose()
            }
        }
        impl<A: Back<B>, B> Back<Vec<B>> for Vec<A> {
            fn back(#recv, what: &str) -> sessiondb::Result<Vec<B>> {
                #iter.map(|a| a.back(what)).collect()
            }
        }
        /// Lists back into sets.
        impl<A: Back<B>, B: Ord> Back<std::collections::BTreeSet<B>> for Vec<A> {
            fn back(#recv, what: &str) -> sessiondb::Result<std::collections::BTreeSet<B>> {
                #iter.map(|a| a.back(what)).collect()
            }
        }
    }
}

/// Python and Node: a JSON object field back from the host's JSON value
/// `from` (`null`: an empty object; anything else but an object: `InvalidInput`).
fn json_object_back(by_ref: bool, from: TokenStream) -> TokenStream {
    let (recv, value, map) = match by_ref {
        true => (quote!(&self), quote!(&self.0), quote!(m.clone())),
        false => (quote!(self), quote!(self), quote!(m)),
    };
    quote! {
        impl Back<serde_json::Map<String, serde_json::Value>> for #from {
            fn back(#recv, what: &str) -> sessiondb::Result<serde_json::Map<String, serde_json::Value>> {
                match #value {
                    serde_json::Value::Object(m) => Ok(#map),
                    serde_json::Value::Null => Ok(serde_json::Map::new()),
                    _ => Err(sessiondb::Error::invalid(format!("{what} must be a JSON object"))),
                }
            }
        }
    }
}

/// The identity `Conv<T> for T` on each of `types`.
fn same(types: &[TokenStream]) -> TokenStream {
    quote!(#(impl Conv<#types> for #types { fn conv(self) -> #types { self } })*)
}

/// `Conv<To> for From` by `body` (of `self`), for each `(from, to, body)`.
fn convs(rules: &[(TokenStream, TokenStream, TokenStream)]) -> TokenStream {
    let rules = rules.iter().map(|(from, to, body)| quote!(impl Conv<#to> for #from { fn conv(self) -> #to { #body } }));
    quote!(#(#rules)*)
}

/// The identity `Back<T> for T` on each of `types`, by reference (Python) or value.
fn back_same(types: &[TokenStream], by_ref: bool) -> TokenStream {
    let (recv, value) = if by_ref { (quote!(&self), quote!(self.clone())) } else { (quote!(self), quote!(self)) };
    quote!(#(impl Back<#types> for #types { fn back(#recv, _: &str) -> sessiondb::Result<#types> { Ok(#value) } })*)
}

/// The `Conv`/`Back` rules of `host`, for the generated records (`same`: the
/// core types Kotlin/Swift expose as they are, by their paths).
pub(crate) fn conversions(host: Host, same_types: &[String]) -> TokenStream {
    let rules = match host {
        Host::Python => python(),
        Host::Node => node(),
        Host::Uniffi => uniffi(&same_types.iter().map(|t| toks(t)).collect::<Vec<_>>()),
    };
    let conv = conv();
    quote!(#conv #rules)
}

/// Python: tuples kept, maps kept; `Back` by reference.
fn python() -> TokenStream {
    let same = same(&[quote!(()), quote!(String), quote!(u64), quote!(i64), quote!(u32), quote!(u8), quote!(bool), quote!(f64)]);
    let back = back(true);
    let back_same = back_same(&[quote!(String), quote!(u64), quote!(i64), quote!(u32), quote!(u8), quote!(bool)], true);
    // JSON values and objects as Python values (`crate::json::Json`: a new
    // value on each read, as `json.loads` gives).
    let json = convs(&[
        (quote!(serde_json::Value), quote!(crate::json::Json), quote!(crate::json::Json(self))),
        (quote!(serde_json::Map<String, serde_json::Value>), quote!(crate::json::Json), quote!(crate::json::Json(serde_json::Value::Object(self)))),
    ]);
    let json_back = json_object_back(true, quote!(crate::json::Json));
    quote! {
        #same #back #back_same #json #json_back
        impl<A: Back<B>, B> Back<std::collections::BTreeMap<u64, B>> for std::collections::BTreeMap<u64, A> {
            fn back(&self, what: &str) -> sessiondb::Result<std::collections::BTreeMap<u64, B>> {
                self.iter().map(|(k, a)| Ok((*k, a.back(what)?))).collect()
            }
        }
    }
}

/// Node: counts as JS numbers (saturating out, checked in), bytes as
/// `Buffer`, seq-keyed maps with string keys; `Back` by value.
fn node() -> TokenStream {
    let same = same(&[quote!(()), quote!(String), quote!(i64), quote!(u32), quote!(u8), quote!(bool), quote!(f64), quote!(serde_json::Value)]);
    let numbers = convs(&[
        // Counts as JS numbers, exact below 2^53 (saturating).
        (quote!(u64), quote!(i64), quote!(crate::records::n(self))),
        (quote!(u8), quote!(u32), quote!(u32::from(self))),
        (quote!(Vec<u8>), quote!(napi::bindgen_prelude::Buffer), quote!(self.into())),
        (quote!(u64), quote!(f64), quote!(self as f64)),
        (quote!(i64), quote!(f64), quote!(self as f64)),
        (quote!(usize), quote!(f64), quote!(self as f64)),
        (quote!(u32), quote!(f64), quote!(f64::from(self))),
        (quote!(u8), quote!(f64), quote!(f64::from(self))),
    ]);
    let (back, back_same) = (back(false), back_same(&[quote!(String), quote!(i64), quote!(u32), quote!(u8), quote!(bool), quote!(serde_json::Value)], false));
    let object = convs(&[(quote!(serde_json::Map<String, serde_json::Value>), quote!(serde_json::Value), quote!(serde_json::Value::Object(self)))]);
    let json_back = json_object_back(false, quote!(serde_json::Value));
    // The numbers of a record a caller passes in: JS numbers, checked into
    // the integer (finite, whole, at most 2^53 - 1, in range).
    let ints = [quote!(u64), quote!(i64), quote!(u32), quote!(u8), quote!(usize)];
    quote! {
        #same #numbers
        /// Seq-keyed maps: JS object keys are strings.
        impl<A: Conv<B>, B> Conv<std::collections::BTreeMap<String, B>> for std::collections::BTreeMap<u64, A> {
            fn conv(self) -> std::collections::BTreeMap<String, B> {
                self.into_iter().map(|(k, v)| (k.to_string(), v.conv())).collect()
            }
        }
        #back #back_same #object #json_back
        impl Back<u64> for i64 {
            fn back(self, what: &str) -> sessiondb::Result<u64> {
                crate::records::u(self, what)
            }
        }
        #(impl Back<#ints> for f64 { fn back(self, what: &str) -> sessiondb::Result<#ints> { crate::records::int(self, what) } })*
        /// Seq-keyed maps: JS object keys are decimal strings.
        impl<A: Back<B>, B> Back<std::collections::BTreeMap<u64, B>> for std::collections::BTreeMap<String, A> {
            fn back(self, what: &str) -> sessiondb::Result<std::collections::BTreeMap<u64, B>> {
                self.into_iter()
                    .map(|(k, a)| {
                        let seq = k.parse::<u64>().map_err(|_| sessiondb::Error::invalid(format!("{what} keys must be seqs, not {k:?}")))?;
                        Ok((seq, a.back(what)?))
                    })
                    .collect()
            }
        }
    }
}

/// Kotlin/Swift: the core types as they are (`exposed`: those the records
/// and enums expose, by their paths); seq-keyed maps as their values in
/// seq order, other maps as `HashMap`, `usize` counts as `u32`; `Back`
/// (twins a caller passes in) infallible.
fn uniffi(exposed: &[TokenStream]) -> TokenStream {
    let types: Vec<TokenStream> = [quote!(()), quote!(String), quote!(u64), quote!(i64), quote!(u32), quote!(u8), quote!(bool)].into_iter().chain(exposed.iter().cloned()).collect();
    let same = same(&types);
    let convs = convs(&[
        // A count the core keeps as `usize`, as the FFI's `u32` (saturating).
        (quote!(usize), quote!(u32), quote!(u32::try_from(self).unwrap_or(u32::MAX))),
        // A JSON value as its text (a twin's `<name>_json` field).
        (quote!(serde_json::Value), quote!(String), quote!(self.to_string())),
        (quote!(serde_json::Map<String, serde_json::Value>), quote!(String), quote!(serde_json::Value::Object(self).to_string())),
    ]);
    quote! {
        #same #convs
        /// A seq-keyed map as its values in seq order.
        impl<A: Conv<B>, B> Conv<Vec<B>> for std::collections::BTreeMap<u64, A> {
            fn conv(self) -> Vec<B> {
                self.into_values().map(Conv::conv).collect()
            }
        }
        impl<K: std::hash::Hash + Eq, A: Conv<B>, B> Conv<std::collections::HashMap<K, B>> for std::collections::BTreeMap<K, A> {
            fn conv(self) -> std::collections::HashMap<K, B> {
                self.into_iter().map(|(k, v)| (k, v.conv())).collect()
            }
        }
        /// An FFI value as the core's (the inverse of `Conv`, for the twins a
        /// caller passes in): the identity on the types exposed as they are.
        pub trait Back<C> {
            /// Convert.
            fn back(self) -> C;
        }
        impl<A: Back<B>, B> Back<Option<B>> for Option<A> {
            fn back(self) -> Option<B> {
                self.map(Back::back)
            }
        }
        impl<A: Back<B>, B> Back<Vec<B>> for Vec<A> {
            fn back(self) -> Vec<B> {
                self.into_iter().map(Back::back).collect()
            }
        }
        impl<A: Back<B>, B: Ord> Back<std::collections::BTreeSet<B>> for Vec<A> {
            fn back(self) -> std::collections::BTreeSet<B> {
                self.into_iter().map(Back::back).collect()
            }
        }
        /// A value the core shares (`Arc`): a fresh one.
        impl<A: Back<B>, B> Back<std::sync::Arc<B>> for A {
            fn back(self) -> std::sync::Arc<B> {
                std::sync::Arc::new(self.back())
            }
        }
        impl Back<usize> for u32 {
            fn back(self) -> usize {
                self as usize
            }
        }
        #(impl Back<#types> for #types { fn back(self) -> #types { self } })*
    }
}
