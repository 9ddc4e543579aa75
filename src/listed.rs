//! Enums whose variants are listed once. `listed!` declares the enum with
//! each variant's name beside it, and derives from that one list its `ALL`
//! (every variant, in the order declared), `NAMES` and `as_str`, and the name
//! serde reads and writes: no second table to keep in step by hand. A leaf:
//! it imports nothing of the crate.

/// ```ignore
/// listed! {
///     #[derive(Debug, Clone, Copy, serde::Deserialize)]
///     pub enum Class {
///         Excluded = "excluded",
///         Impacted = "impacted",
///     }
/// }
/// ```
#[macro_export]
macro_rules! listed {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )+
        }

        impl $name {
            /// Every variant, in the order declared.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];
            /// Every variant's name, in `ALL`'s order.
            pub const NAMES: [&'static str; [$($text),+].len()] = [$($text),+];

            /// Its name, as serde reads and writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }
    };
}
