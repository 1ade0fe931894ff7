//! [`named_enum!`](crate::named_enum): an enum of names, written once.
//!
//! Presets, letter cases, statuses: many of quire's enums are a closed set
//! of names, and each needs the same few things: every variant in order
//! (`ALL`), a variant's name (`name`), the variant of a name (`from_name`),
//! `Display`, and often `FromStr` with an error that lists the names. By
//! hand that is a list and two matches to keep in step, six times over; the
//! macro takes one list of variants and their names and writes the rest.
//!
//! A `macro_rules!` rather than `strum`: strum is a procedural macro, and
//! its crates (syn, quote, proc-macro2, heck) would count against the
//! grammar's dependency budget (see `tests/dependencies.rs`) for what fits
//! in a page here.

/// Declares an enum whose variants each have a name, with what such an enum
/// needs: an associated `ALL` (every variant, in the order written),
/// `name(self) -> &'static str`, `from_name(&str) -> Option<Self>` (the
/// exact name), and `Display` (the name).
///
/// Write the enum as usual, each variant followed by `=> "its name"`. The
/// enum must derive `Clone` and `Copy`. A variant may carry any attributes
/// (`///` docs, `#[default]`); a `#[cfg(...)]` on it leaves it out of
/// `ALL` and `name` too, so `ALL` holds exactly the variants built.
///
/// After the enum, an optional error type for names that are none of
/// them: `struct Name(pub String) = "unknown thing";` declares it (holding
/// the name as given, displayed as ``unknown thing `given`; use one of:
/// a, b``) and implements `FromStr` with it, by `from_name`; a following
/// `impl FromStr with path;` reads names with the function `path`
/// (`fn(&str) -> Option<Enum>`: other spellings, aliases) instead.
///
/// ```
/// quire_grammar::named_enum! {
///     /// How loud a bell rings.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
///     pub enum Volume {
///         /// Not at all.
///         #[default]
///         Off => "off",
///         /// So that the room hears it.
///         Loud => "loud",
///     }
///
///     /// A volume name that is none of [`Volume::ALL`]'s.
///     pub struct UnknownVolume(pub String) = "unknown volume";
/// }
///
/// assert_eq!(Volume::ALL, [Volume::Off, Volume::Loud]);
/// assert_eq!(Volume::Loud.name(), "loud");
/// assert_eq!(Volume::from_name("off"), Some(Volume::Off));
/// assert_eq!(format!("{}", Volume::default()), "off");
/// assert_eq!("loud".parse(), Ok(Volume::Loud));
/// assert_eq!(
///     "quiet".parse::<Volume>().unwrap_err().to_string(),
///     "unknown volume `quiet`; use one of: off, loud"
/// );
/// ```
///
/// Names read another way, here in any letter case:
///
/// ```
/// quire_grammar::named_enum! {
///     /// A side.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub enum Side {
///         /// The left one.
///         Left => "left",
///         /// The right one.
///         Right => "right",
///     }
///
///     /// A side name that is none of [`Side::ALL`]'s.
///     pub struct UnknownSide(pub String) = "unknown side";
///     /// Takes the names in any letter case.
///     impl FromStr with side_named;
/// }
///
/// fn side_named(name: &str) -> Option<Side> {
///     Side::from_name(&name.to_ascii_lowercase())
/// }
///
/// assert_eq!("RIGHT".parse(), Ok(Side::Right));
/// assert_eq!(Side::from_name("RIGHT"), None);
/// ```
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident {
            $($variants:tt)*
        }
        $($unknown:tt)*
    ) => {
        $crate::__named_enum! {
            @variants [$(#[$meta])* $vis enum $Name] [$($unknown)*] [] [] []
            $($variants)*
        }
    };
}

/// The workings of [`named_enum!`]: not for direct use.
///
/// `@variants` reads the variants one attribute at a time, keeping each
/// variant's `#[cfg]` apart from its other attributes (the `cfg`s alone go
/// on the elements of `ALL` and the arms of `name`, where a doc comment or
/// `#[default]` may not stand); `@emit` writes the enum and its items;
/// `@unknown` the error type and `FromStr`.
#[doc(hidden)]
#[macro_export]
macro_rules! __named_enum {
    // A variant's `#[cfg(...)]`.
    (
        @variants $head:tt $unknown:tt [$($done:tt)*] [$($cfg:tt)*] [$($attr:tt)*]
        #[cfg $($condition:tt)*] $($rest:tt)*
    ) => {
        $crate::__named_enum! {
            @variants $head $unknown [$($done)*] [$($cfg)* #[cfg $($condition)*]] [$($attr)*]
            $($rest)*
        }
    };
    // Any other attribute of a variant (`///` is `#[doc = "..."]`).
    (
        @variants $head:tt $unknown:tt [$($done:tt)*] [$($cfg:tt)*] [$($attr:tt)*]
        #[$($attribute:tt)*] $($rest:tt)*
    ) => {
        $crate::__named_enum! {
            @variants $head $unknown [$($done)*] [$($cfg)*] [$($attr)* #[$($attribute)*]]
            $($rest)*
        }
    };
    // A variant and its name: one done.
    (
        @variants $head:tt $unknown:tt [$($done:tt)*] [$($cfg:tt)*] [$($attr:tt)*]
        $Variant:ident => $name:literal $(, $($rest:tt)*)?
    ) => {
        $crate::__named_enum! {
            @variants $head $unknown
            [$($done)* { [$($cfg)*] [$($attr)*] $Variant $name }] [] []
            $($($rest)*)?
        }
    };
    // Every variant read.
    (@variants $head:tt $unknown:tt [$($done:tt)*] [] []) => {
        $crate::__named_enum! { @emit $head $unknown $($done)* }
    };
    (
        @emit [$(#[$meta:meta])* $vis:vis enum $Name:ident] [$($unknown:tt)*]
        $({ [$(#[$cfg:meta])*] [$(#[$attr:meta])*] $Variant:ident $name:literal })*
    ) => {
        $(#[$meta])*
        $vis enum $Name {
            $($(#[$cfg])* $(#[$attr])* $Variant,)*
        }

        // A private enum need not use all of these.
        #[allow(dead_code)]
        impl $Name {
            /// Every variant, in the order declared.
            $vis const ALL: [$Name; [$($(#[$cfg])* $Name::$Variant),*].len()] =
                [$($(#[$cfg])* $Name::$Variant),*];

            /// The variant's name.
            $vis fn name(self) -> &'static str {
                match self {
                    $($(#[$cfg])* $Name::$Variant => $name,)*
                }
            }

            /// The variant whose [`name`](Self::name) is exactly `name`.
            $vis fn from_name(name: &str) -> ::core::option::Option<$Name> {
                $Name::ALL.into_iter().find(|variant| variant.name() == name)
            }
        }

        /// The variant's [`name`](Self::name).
        impl ::core::fmt::Display for $Name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        $crate::__named_enum! { @unknown $Name $($unknown)* }
    };
    (@unknown $Name:ident) => {};
    (
        @unknown $Name:ident
        $(#[$meta:meta])*
        $vis:vis struct $Error:ident(pub String) = $what:literal;
        $($(#[$from_str_meta:meta])* impl FromStr with $lookup:path;)?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        $vis struct $Error(pub String);

        impl ::core::fmt::Display for $Error {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(
                    f,
                    "{} `{}`; use one of: {}",
                    $what,
                    self.0,
                    $Name::ALL.map($Name::name).join(", ")
                )
            }
        }

        impl ::std::error::Error for $Error {}

        $($(#[$from_str_meta])*)?
        impl ::core::str::FromStr for $Name {
            type Err = $Error;

            fn from_str(name: &str) -> ::core::result::Result<$Name, $Error> {
                let lookup = $crate::__named_enum!(@lookup $Name $($lookup)?);
                lookup(name).ok_or_else(|| $Error(name.to_owned()))
            }
        }
    };
    (@lookup $Name:ident) => { $Name::from_name };
    (@lookup $Name:ident $lookup:path) => { $lookup };
}

#[cfg(test)]
mod tests {
    crate::named_enum! {
        /// A test enum with a variant this build leaves out.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
        pub(crate) enum Fruit {
            /// An apple.
            Apple => "apple",
            /// Never built.
            #[cfg(any())]
            Durian => "durian",
            /// The default.
            #[default]
            Pear => "pear",
            Plum => "plum"
        }

        /// A fruit name that is none of [`Fruit::ALL`]'s.
        pub(crate) struct UnknownFruit(pub String) = "unknown fruit";
    }

    crate::named_enum! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Bare {
            One => "one",
        }
    }

    #[test]
    fn all_holds_the_variants_built_in_order() {
        assert_eq!(Fruit::ALL, [Fruit::Apple, Fruit::Pear, Fruit::Plum]);
        assert_eq!(Fruit::ALL.map(Fruit::name), ["apple", "pear", "plum"]);
        assert_eq!(Fruit::default(), Fruit::Pear);
        assert_eq!(Bare::ALL, [Bare::One]);
        assert_eq!(Bare::One.to_string(), "one");
    }

    #[test]
    fn names_are_read_exactly() {
        assert_eq!(Fruit::from_name("plum"), Some(Fruit::Plum));
        assert_eq!("pear".parse(), Ok(Fruit::Pear));
        for wrong in ["durian", "Plum", " plum", ""] {
            assert_eq!(Fruit::from_name(wrong), None, "{wrong:?}");
            assert_eq!(
                wrong.parse::<Fruit>(),
                Err(UnknownFruit(wrong.to_owned())),
                "{wrong:?}"
            );
        }
        assert_eq!(
            "durian".parse::<Fruit>().unwrap_err().to_string(),
            "unknown fruit `durian`; use one of: apple, pear, plum"
        );
    }
}
