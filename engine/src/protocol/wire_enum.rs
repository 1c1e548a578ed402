//! `wire_enum!`: small integer enums that travel as canonical decimal text.

/// A wire enum's number as read from or written to a document.
pub(crate) trait WireCode: Sized + Copy {
    /// What the number names, for error messages (e.g. "status").
    const WHAT: &'static str;
    /// The value for a decoded number, if it is defined.
    fn from_wire(n: u64) -> Option<Self>;
}

/// Declares a fieldless enum with explicit wire numbers, `ALL`, the named conversion pair,
/// `Display` (the number) and [`WireCode`].
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident : $repr:ty, $what:literal, $as:ident, $from:ident {
            $( $(#[$vmeta:meta])* $var:ident = $val:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $var = $val, )+
        }

        impl $name {
            /// Every value, in wire order.
            pub const ALL: &'static [$name] = &[$($name::$var),+];

            /// The wire number.
            pub const fn $as(self) -> $repr {
                self as $repr
            }

            /// The value for a wire number, if it is defined.
            pub const fn $from(n: $repr) -> Option<Self> {
                match n {
                    $($val => Some($name::$var),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.$as())
            }
        }

        impl $crate::protocol::wire_enum::WireCode for $name {
            const WHAT: &'static str = $what;
            fn from_wire(n: u64) -> Option<Self> {
                <$repr>::try_from(n).ok().and_then(Self::$from)
            }
        }
    };
}
