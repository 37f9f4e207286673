// A registry of codecs keyed by higher-ranked projections.
struct Utf8;
struct Latin1;

pub trait Pair<X> {}

pub trait Decode<'buf> {
    type Item;
}
pub trait Encode<'buf> {
    type Item;
}

impl<A, B> Pair<for<'buf> fn(<A as Decode<'buf>>::Item, <B as Encode<'buf>>::Item)> for (A, B)
where
    A: for<'buf> Decode<'buf> + for<'buf> Encode<'buf, Item = u8>,
    B: for<'buf> Encode<'buf>,
{
}

impl Decode<'_> for Utf8 {
    type Item = char;
}
impl Encode<'_> for Utf8 {
    type Item = u8;
}
impl Decode<'_> for Latin1 {
    type Item = char;
}
impl Encode<'_> for Latin1 {
    type Item = u16;
}

fn check_pair<A, B, F>()
where
    A: for<'buf> Decode<'buf>,
    B: for<'buf> Encode<'buf>,
    (A, B): Pair<F>,
{
}

fn main() {
    check_pair::<Utf8, Latin1, _>();
}
