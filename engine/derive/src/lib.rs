//! `#[component]`: one attribute that makes a struct or an enum a Keel
//! component. Re-exported by `keel_engine` (`keel_engine::component`); a game
//! names only `keel_engine` in its `Cargo.toml`.
//!
//! A derive cannot add derives to the item it is on, and a component needs
//! four of other crates' (serde's two, bevy_reflect's, and `Clone`/`Debug`)
//! with their settings; an attribute macro can write them, so the attribute
//! is the one line. It expands
//!
//! ```ignore
//! #[keel_engine::component(name = "health", validate = Health::check)]
//! #[derive(Default)]
//! struct Health { hp: f32 }
//! ```
//!
//! to the item with `Clone`, `Debug`, `Serialize`, `Deserialize` and
//! `Reflect` derived (those it does not derive already), serde told to refuse
//! unknown fields (a misspelt field is an error at its line, not a value
//! dropped on save) and, on a struct, to fill missing fields from `Default`,
//! plus `impl Component` with `NAME` (the type's name in snake case unless
//! given) and `validate` (when given).

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Item, LitStr, Meta, Path, Token};

/// Makes the struct or enum under it a component: see the crate's docs.
///
/// Arguments, all optional: `name = "..."` (what scene files write it
/// under: lower case), `validate = path` (a `fn(&Self) -> Result<(),
/// keel_engine::InvalidValue>` run on every value read from a file).
#[proc_macro_attribute]
pub fn component(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand(args.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// Makes the struct or enum under it a type a component's field can hold
/// (an enum of states, a nested struct): the derives `#[component]` writes,
/// with serde refusing unknown fields, and no `impl Component`. Takes no
/// arguments; a struct's missing fields come from `Default` only when it
/// says `#[serde(default)]` itself.
#[proc_macro_attribute]
pub fn field(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand_field(args.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// The derives and serde settings of a plain field type (see [`field`]).
fn expand_field(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    if !args.is_empty() {
        return Err(syn::Error::new_spanned(
            args,
            "#[field] takes no arguments (a component's name and check go on #[component])",
        ));
    }
    let item: Item = syn::parse2(item)?;
    let attrs = match &item {
        Item::Struct(s) => &s.attrs,
        Item::Enum(e) => &e.attrs,
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "#[field] goes on a struct or an enum",
            ));
        }
    };
    let (derives, serde_crate) = derives_lacking(attrs)?;
    let keel = quote!(::keel_engine);
    Ok(quote! {
        #[allow(unused_imports)]
        use #keel::__component::*;
        #[derive(#(#derives),*)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #item
    })
}

/// The derives a Keel type needs that `attrs` do not derive already, and
/// the path serde is told to find its crate at.
fn derives_lacking(
    attrs: &[syn::Attribute],
) -> syn::Result<(Vec<proc_macro2::TokenStream>, LitStr)> {
    let have = derived(attrs)?;
    let keel = quote!(::keel_engine);
    let wanted = [
        ("Clone", quote!(::core::clone::Clone)),
        ("Debug", quote!(::core::fmt::Debug)),
        ("Serialize", quote!(#keel::serde::Serialize)),
        ("Deserialize", quote!(#keel::serde::Deserialize)),
        ("Reflect", quote!(#keel::bevy_reflect::Reflect)),
    ];
    let derives = wanted
        .into_iter()
        .filter(|(short, _)| !have.iter().any(|h| h == short))
        .map(|(_, path)| path)
        .collect();
    Ok((
        derives,
        LitStr::new("::keel_engine::serde", Span::call_site()),
    ))
}

struct Args {
    name: Option<LitStr>,
    validate: Option<Path>,
}

fn parse_args(args: proc_macro2::TokenStream) -> syn::Result<Args> {
    let mut out = Args {
        name: None,
        validate: None,
    };
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    for meta in metas {
        let Meta::NameValue(pair) = &meta else {
            return Err(syn::Error::new_spanned(
                meta,
                "expected `name = \"...\"` or `validate = path`",
            ));
        };
        let value = &pair.value;
        if pair.path.is_ident("name") {
            out.name = Some(syn::parse2(quote!(#value))?);
        } else if pair.path.is_ident("validate") {
            out.validate = Some(syn::parse2(quote!(#value))?);
        } else {
            return Err(syn::Error::new_spanned(
                &pair.path,
                "unknown argument: expected `name` or `validate`",
            ));
        }
    }
    Ok(out)
}

/// `ShipSpeed` -> `ship_speed`.
fn snake_case(ident: &str) -> String {
    let mut out = String::with_capacity(ident.len() + 4);
    for (i, c) in ident.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The last path segments of the traits `attrs` already derive.
fn derived(attrs: &[syn::Attribute]) -> syn::Result<Vec<String>> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let paths = attr.parse_args_with(Punctuated::<Path, Token![,]>::parse_terminated)?;
        out.extend(
            paths
                .iter()
                .filter_map(|p| p.segments.last().map(|s| s.ident.to_string())),
        );
    }
    Ok(out)
}

fn expand(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    let args = parse_args(args)?;
    let item: Item = syn::parse2(item)?;
    let (ident, generics, attrs, is_struct) = match &item {
        Item::Struct(s) => (&s.ident, &s.generics, &s.attrs, true),
        Item::Enum(e) => (&e.ident, &e.generics, &e.attrs, false),
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "#[component] goes on a struct or an enum",
            ));
        }
    };
    let name = args
        .name
        .unwrap_or_else(|| LitStr::new(&snake_case(&ident.to_string()), Span::call_site()));
    if name.value().is_empty() || name.value().chars().any(char::is_uppercase) {
        return Err(syn::Error::new_spanned(
            &name,
            "a component's name is lower case and not empty",
        ));
    }
    let keel = quote!(::keel_engine);
    let (derives, serde_crate) = derives_lacking(attrs)?;
    let serde = if is_struct {
        quote!(#[serde(crate = #serde_crate, deny_unknown_fields, default)])
    } else {
        quote!(#[serde(crate = #serde_crate, deny_unknown_fields)])
    };
    let validate = args.validate.map(|path| {
        quote! {
            fn validate(&self) -> ::core::result::Result<(), #keel::InvalidValue> {
                #path(self)
            }
        }
    });
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    Ok(quote! {
        // Reflect's derive names its crate `bevy_reflect`: this brings
        // Keel's into scope (the same crate, wherever else it is named).
        #[allow(unused_imports)]
        use #keel::__component::*;
        #[derive(#(#derives),*)]
        #serde
        #item
        impl #impl_generics #keel::Component for #ident #type_generics #where_clause {
            const NAME: &'static str = #name;
            #validate
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_default_to_snake_case() {
        assert_eq!(snake_case("Health"), "health");
        assert_eq!(snake_case("ShipSpeed"), "ship_speed");
        assert_eq!(snake_case("Orchard2D"), "orchard2_d");
    }

    #[test]
    fn the_expansion_derives_what_the_item_lacks_and_refuses_unknown_fields() {
        let out = expand(
            quote!(name = "tree"),
            quote!(
                #[derive(Default, Clone)]
                struct Tree {
                    height: f32,
                }
            ),
        )
        .unwrap()
        .to_string();
        assert!(out.contains("deny_unknown_fields"), "{out}");
        assert!(
            out.contains("const NAME : & 'static str = \"tree\""),
            "{out}"
        );
        assert!(
            !out.contains(":: core :: clone :: Clone"),
            "Clone was there: {out}"
        );
        let error = expand(
            quote!(name = "Tree"),
            quote!(
                struct Tree;
            ),
        )
        .unwrap_err();
        assert!(error.to_string().contains("lower case"));
        let error = expand(
            quote!(colour = "x"),
            quote!(
                struct Tree;
            ),
        )
        .unwrap_err();
        assert!(error.to_string().contains("unknown argument"));
    }
}
