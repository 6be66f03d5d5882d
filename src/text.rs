//! Queries and schemas as text, for every client that cannot build the protobuf messages itself
//! (HBase's filter language through the shell or a Thrift gateway, the command line): a where
//! clause parses to the `PredicateComparatorSpec` the builder makes, a schema text to its
//! `SchemaSpec`. The printers are here too ([`describe_conditions`], [`describe_comparator`],
//! [`describe_schema`]), so parsing what they print gives the message back; the planner's
//! `explain()` writes its conditions with them. The one text form of conditions, SQL-like: `code =
//! 404 AND sdate BETWEEN 1 AND 9 AND type IN (1, 2) AND status <> -1`, strings `'quoted'` (a quote
//! doubled), bytes `x'0a1b'`.
//!
//! Where clause: `code = 404 AND sdate BETWEEN 20161201 AND 20161209 AND type IN (1, 2) AND NOT free`,
//! OR and parentheses anywhere (expanded into an OR of AND-branches), `TRUE` for no condition.
//! Operators `= <> != < <= > >=`, `BETWEEN .. AND ..`, `IN (..)`; a bool field alone or after `NOT`.
//! Literals: integers, `true`/`false`, `'strings'` (a quote doubled), `x'0a1b'` bytes. Field names
//! are plain identifiers or `"double quoted"`; keywords are case-insensitive.
//!
//! Schema: `salt 16 buckets of (a, b), md5url md5(8), sitecode javaHash, sdate int32 DESC, free bool`.
//!
//! The text comes from any client and may be parsed inside a RegionServer: its length, nesting
//! and the OR expansion are bounded by `limits`, and every other limit is the builder's (the
//! result is validated as a comparator would be).

use crate::error::{Error, Result};
use crate::key::{Predicate, Schema, FORMAT_VERSION};
use crate::limits;
use crate::proto::rowkey::{
    comparator_spec::Kind as SpecKind, value::Kind as ValueKind, ComparatorSpec, Condition, FieldSpec, FieldType, Op,
    PredicateComparatorSpec, PredicateSpec, SaltSpec, SchemaSpec, Value,
};
/// A value as a literal.
pub(crate) fn describe_value(value: &Value) -> String {
    match &value.kind {
        Some(ValueKind::IntValue(i)) => i.to_string(),
        Some(ValueKind::BoolValue(b)) => b.to_string(),
        Some(ValueKind::StringValue(t)) => format!("'{}'", t.replace('\'', "''")),
        Some(ValueKind::BytesValue(b)) => format!("x'{}'", hex(b)),
        None => "NULL".into(),
    }
}

/// One condition, e.g. `sdate BETWEEN 1 AND 9`.
pub(crate) fn describe_condition(c: &Condition) -> String {
    let value = |i: usize| c.values.get(i).map_or_else(|| "?".to_owned(), describe_value);
    let field = quote_name(&c.field);
    let op = match c.op.enum_value() {
        Ok(Op::EQ) => "=",
        Ok(Op::NE) => "<>",
        Ok(Op::LT) => "<",
        Ok(Op::LE) => "<=",
        Ok(Op::GT) => ">",
        Ok(Op::GE) => ">=",
        Ok(Op::BETWEEN) => return format!("{field} BETWEEN {} AND {}", value(0), value(1)),
        Ok(Op::IN) => {
            let values: Vec<String> = c.values.iter().map(describe_value).collect();
            return format!("{field} IN ({})", values.join(", "));
        }
        Ok(Op::OP_UNSPECIFIED) | Err(_) => "?",
    };
    format!("{field} {op} {}", value(0))
}

/// Conditions AND-ed; `TRUE` for none.
pub fn describe_conditions<'a>(conditions: impl IntoIterator<Item = &'a Condition>) -> String {
    let text: Vec<String> = conditions.into_iter().map(describe_condition).collect();
    if text.is_empty() {
        "TRUE".into()
    } else {
        text.join(" AND ")
    }
}

/// What a comparator tests: its equalities or conditions, or `field <=> value` for a range
/// comparator (compared with HBase's operator).
pub fn describe_comparator(spec: &ComparatorSpec) -> String {
    match &spec.kind {
        Some(SpecKind::Equal(equal)) => {
            let text: Vec<String> = equal
                .equalities
                .iter()
                .map(|e| {
                    format!(
                        "{} = {}",
                        quote_name(&e.field),
                        describe_value(e.value.get_or_default())
                    )
                })
                .collect();
            if text.is_empty() {
                "TRUE".into()
            } else {
                text.join(" AND ")
            }
        }
        Some(SpecKind::Range(range)) => format!(
            "{} <=> {}",
            quote_name(&range.field),
            describe_value(range.value.get_or_default())
        ),
        Some(SpecKind::Predicate(p)) => describe_where(p),
        None => "no comparator kind".into(),
    }
}

/// [`describe_comparator`] of a serialized `ComparatorSpec` (checked like any message from outside).
#[cfg(feature = "java")]
pub(crate) fn describe_comparator_bytes(spec: &[u8]) -> Result<String> {
    Ok(describe_comparator(&crate::wire::parse::<ComparatorSpec>(
        spec,
        "comparator",
    )?))
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parenthesis nesting a where clause may use (the parser recurses once per level).
pub const MAX_NESTING: usize = 64;

/// Words that are never a bare field name; a field called so is written `"quoted"`.
const KEYWORDS: [&str; 12] = [
    "and", "or", "not", "between", "in", "true", "false", "null", "desc", "salt", "buckets", "of",
];

/// A field name as the text forms write it: bare when it is an identifier and no keyword, else
/// double-quoted with quotes doubled.
pub(crate) fn quote_name(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(name));
    if plain {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The where clause of a predicate comparator: its conditions AND-ed, or its branches OR-ed, each
/// in parentheses.
pub fn describe_where(spec: &PredicateComparatorSpec) -> String {
    if spec.any_of.is_empty() {
        return describe_conditions(&spec.predicate.get_or_default().conditions);
    }
    let branches: Vec<String> = spec
        .any_of
        .iter()
        .map(|b| format!("({})", describe_conditions(&b.conditions)))
        .collect();
    branches.join(" OR ")
}

/// The schema's text form: `[salt N buckets [of (f, ..)], ]name type[(width)] [DESC], ...`.
pub fn describe_schema(spec: &SchemaSpec) -> String {
    let mut items = Vec::new();
    if let Some(salt) = spec.salt.as_ref() {
        let mut s = format!("salt {} buckets", salt.buckets);
        if !salt.fields.is_empty() {
            let names: Vec<String> = salt.fields.iter().map(|n| quote_name(n)).collect();
            s.push_str(&format!(" of ({})", names.join(", ")));
        }
        items.push(s);
    }
    for f in &spec.fields {
        let ty = f.type_.enum_value().map_or("?", type_name);
        let mut s = format!("{} {ty}", quote_name(&f.name));
        if matches!(
            f.type_.enum_value(),
            Ok(FieldType::FIXED_STRING | FieldType::FIXED_BYTES | FieldType::MD5)
        ) {
            s.push_str(&format!("({})", f.width));
        }
        if f.descending {
            s.push_str(" DESC");
        }
        items.push(s);
    }
    items.join(", ")
}

const TYPES: [(&str, FieldType); 9] = [
    ("int32", FieldType::INT32),
    ("int64", FieldType::INT64),
    ("timestamp", FieldType::TIMESTAMP),
    ("reversedTimestamp", FieldType::REVERSED_TIMESTAMP),
    ("bool", FieldType::BOOL),
    ("fixedString", FieldType::FIXED_STRING),
    ("fixedBytes", FieldType::FIXED_BYTES),
    ("md5", FieldType::MD5),
    ("javaHash", FieldType::JAVA_HASH),
];

fn type_name(t: FieldType) -> &'static str {
    TYPES.iter().find(|(_, ty)| *ty == t).map_or("?", |(name, _)| name)
}

/// Parses a where clause on `schema` into the spec the builder makes; validated as a comparator
/// would be (unknown fields, value types and widths, ranges on hashed fields, every limit).
pub fn parse_where(schema: &Schema, text: &str) -> Result<PredicateComparatorSpec> {
    let mut p = Parser::new(text)?;
    let branches = p.or_expression(schema, 0)?;
    p.expect_end("AND, OR or the end of the text")?;
    let mut spec = PredicateComparatorSpec::new();
    if let [only] = branches.as_slice() {
        let mut predicate = PredicateSpec::new();
        predicate.conditions = only.iter().map(|(_, c)| c.clone()).collect();
        Predicate::from_spec(schema, &predicate)?;
        spec.predicate = protobuf::MessageField::some(predicate);
    } else {
        spec.any_of = branches
            .into_iter()
            .map(|b| {
                let mut predicate = PredicateSpec::new();
                predicate.conditions = b.into_iter().map(|(_, c)| c).collect();
                predicate
            })
            .collect();
        crate::eval::Disjunction::compile(schema, &spec.any_of)?;
    }
    Ok(spec)
}

/// Parses a schema's text form into its spec, validated as any schema is.
pub fn parse_schema(text: &str) -> Result<SchemaSpec> {
    let mut p = Parser::new(text)?;
    let mut spec = SchemaSpec::new();
    spec.format_version = FORMAT_VERSION;
    loop {
        let at = p.position();
        let name = p.name("a field name or 'salt'")?;
        if name.eq_ignore_ascii_case("salt") && matches!(p.peek(), Token::Int(_)) && !p.last_was_quoted {
            if spec.salt.is_some() {
                return Err(p.error_at(at, "salt", "the salt once at most"));
            }
            spec.salt = protobuf::MessageField::some(p.salt()?);
        } else {
            if spec.fields.len() >= limits::MAX_FIELDS {
                return Err(Error::LimitExceeded {
                    what: "number of fields".into(),
                    found: spec.fields.len() + 1,
                    limit: limits::MAX_FIELDS,
                });
            }
            spec.fields.push(p.field_type(name)?);
        }
        if !p.eat_punct(",")? {
            break;
        }
    }
    p.expect_end("',' or the end of the text")?;
    Schema::from_spec(&spec)?;
    Ok(spec)
}

// ------------------------------------------------------------------------------ tokens

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A bare identifier (field name or keyword).
    Word(String),
    /// A `"quoted"` field name.
    Quoted(String),
    Int(i64),
    Str(String),
    Bytes(Vec<u8>),
    /// `= <> != < <= > >= ( ) , -`
    Punct(&'static str),
    End,
}

const PUNCTS: [&str; 10] = ["<>", "!=", "<=", ">=", "=", "<", ">", "(", ")", ","];

/// A token as an error shows it: short, whatever the input.
fn shown(token: &Token) -> String {
    let text = match token {
        Token::Word(w) => w.clone(),
        Token::Quoted(q) => format!("\"{q}\""),
        Token::Int(i) => i.to_string(),
        Token::Str(s) => format!("'{s}'"),
        Token::Bytes(b) => format!("x'{}'", hex(b)),
        Token::Punct(p) => (*p).to_owned(),
        Token::End => return "the end of the text".into(),
    };
    const SHOWN: usize = 40;
    if text.chars().count() > SHOWN {
        format!("'{}...'", text.chars().take(SHOWN).collect::<String>())
    } else {
        format!("'{text}'")
    }
}

struct Lexer<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    at: usize,
    /// Characters before `at` (positions are counted in characters, and kept linear).
    chars: usize,
}

impl Lexer<'_> {
    fn skip(&mut self, bytes: usize) {
        self.chars += self.text[self.at..self.at + bytes].chars().count();
        self.at += bytes;
    }

    /// The next token and the character position (1-based) where it starts.
    fn next(&mut self) -> Result<(Token, usize)> {
        let rest = &self.text[self.at..];
        let trimmed = rest.trim_start();
        self.skip(rest.len() - trimmed.len());
        let position = self.chars + 1;
        let syntax = |found: String, expected: &str| Error::Syntax {
            position,
            found,
            expected: expected.to_owned(),
        };
        let Some(c) = trimmed.chars().next() else {
            return Ok((Token::End, position));
        };
        let token = if (c == 'x' || c == 'X') && trimmed[1..].starts_with('\'') {
            self.skip(1);
            let digits = self
                .quoted('\'')
                .ok_or_else(|| syntax("an unclosed x'...'".into(), "a closing quote"))?;
            if digits.len() % 2 != 0 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(syntax(
                    format!("x'{}'", digits.chars().take(40).collect::<String>()),
                    "an even number of hex digits in x'...'",
                ));
            }
            let bytes = (0..digits.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap_or(0))
                .collect();
            Token::Bytes(bytes)
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = trimmed
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(trimmed.len());
            self.skip(end);
            Token::Word(trimmed[..end].to_owned())
        } else if c.is_ascii_digit() || (c == '-' && trimmed[1..].starts_with(|d: char| d.is_ascii_digit())) {
            let end = 1 + trimmed[1..]
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(trimmed.len() - 1);
            self.skip(end);
            let literal = &trimmed[..end];
            Token::Int(literal.parse().map_err(|_| {
                let shown: String = literal.chars().take(40).collect();
                syntax(format!("'{shown}'"), "an integer within the 64-bit signed range")
            })?)
        } else if c == '\'' {
            Token::Str(
                self.quoted('\'')
                    .ok_or_else(|| syntax("an unclosed string".into(), "a closing quote"))?,
            )
        } else if c == '"' {
            let name = self
                .quoted('"')
                .ok_or_else(|| syntax("an unclosed quoted name".into(), "a closing double quote"))?;
            Token::Quoted(name)
        } else if let Some(p) = PUNCTS.iter().find(|p| trimmed.starts_with(**p)) {
            self.skip(p.len());
            Token::Punct(p)
        } else {
            return Err(syntax(
                format!("'{c}'"),
                "a field name, a value, an operator or a parenthesis",
            ));
        };
        Ok((token, position))
    }

    /// The text between `quote` at `self.at` and the matching one, a doubled quote standing for
    /// one; None when it is not closed.
    fn quoted(&mut self, quote: char) -> Option<String> {
        let mut out = String::new();
        let mut chars = self.text[self.at + 1..].char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == quote {
                if chars.peek().map(|(_, n)| *n) == Some(quote) {
                    chars.next();
                    out.push(quote);
                    continue;
                }
                self.skip(1 + i + 1);
                return Some(out);
            }
            out.push(c);
        }
        None
    }
}

// ------------------------------------------------------------------------------ parser

/// A condition with the position of its field name, for errors.
type Positioned = (usize, Condition);
/// An OR of AND-branches.
type Branches = Vec<Vec<Positioned>>;

struct Parser<'a> {
    lexer: Lexer<'a>,
    token: Token,
    position: usize,
    last_was_quoted: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Result<Parser<'a>> {
        if text.len() > limits::MAX_MESSAGE_BYTES {
            return Err(Error::LimitExceeded {
                what: "text length in bytes".into(),
                found: text.len(),
                limit: limits::MAX_MESSAGE_BYTES,
            });
        }
        let mut lexer = Lexer { text, at: 0, chars: 0 };
        let (token, position) = lexer.next()?;
        Ok(Parser {
            lexer,
            token,
            position,
            last_was_quoted: false,
        })
    }

    fn peek(&self) -> &Token {
        &self.token
    }

    fn position(&self) -> usize {
        self.position
    }

    fn advance(&mut self) -> Result<Token> {
        let (next, position) = self.lexer.next()?;
        self.position = position;
        Ok(std::mem::replace(&mut self.token, next))
    }

    fn error(&self, expected: &str) -> Error {
        Error::Syntax {
            position: self.position,
            found: shown(&self.token),
            expected: expected.to_owned(),
        }
    }

    fn error_at(&self, position: usize, found: &str, expected: &str) -> Error {
        Error::Syntax {
            position,
            found: format!("'{found}'"),
            expected: expected.to_owned(),
        }
    }

    fn is_keyword(&self, keyword: &str) -> bool {
        matches!(&self.token, Token::Word(w) if w.eq_ignore_ascii_case(keyword))
    }

    fn eat_keyword(&mut self, keyword: &str) -> Result<bool> {
        if self.is_keyword(keyword) {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect_keyword(&mut self, keyword: &str, expected: &str) -> Result<()> {
        if !self.eat_keyword(keyword)? {
            return Err(self.error(expected));
        }
        Ok(())
    }

    fn is_punct(&self, punct: &str) -> bool {
        matches!(self.token, Token::Punct(p) if p == punct)
    }

    fn eat_punct(&mut self, punct: &str) -> Result<bool> {
        if self.is_punct(punct) {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect_punct(&mut self, punct: &str, expected: &str) -> Result<()> {
        if !self.eat_punct(punct)? {
            return Err(self.error(expected));
        }
        Ok(())
    }

    fn expect_end(&self, expected: &str) -> Result<()> {
        if self.token != Token::End {
            return Err(self.error(expected));
        }
        Ok(())
    }

    /// A field name, bare (no keyword) or quoted.
    fn name(&mut self, expected: &str) -> Result<String> {
        let name = match &self.token {
            Token::Word(w) => w.clone(),
            Token::Quoted(q) => q.clone(),
            _ => return Err(self.error(expected)),
        };
        self.last_was_quoted = matches!(self.token, Token::Quoted(_));
        self.advance()?;
        Ok(name)
    }

    fn or_expression(&mut self, schema: &Schema, depth: usize) -> Result<Branches> {
        let mut branches = self.and_expression(schema, depth)?;
        while self.eat_keyword("or")? {
            let more = self.and_expression(schema, depth)?;
            if branches.len() + more.len() > limits::MAX_OR_BRANCHES {
                return Err(or_branches_exceeded(branches.len() + more.len()));
            }
            branches.extend(more);
        }
        Ok(branches)
    }

    /// Terms AND-ed: the product of their OR-branches, bounded as it grows.
    fn and_expression(&mut self, schema: &Schema, depth: usize) -> Result<Branches> {
        let mut branches = self.term(schema, depth)?;
        while self.eat_keyword("and")? {
            let term = self.term(schema, depth)?;
            branches = and_product(branches, term)?;
        }
        Ok(branches)
    }

    fn term(&mut self, schema: &Schema, depth: usize) -> Result<Branches> {
        if self.is_punct("(") {
            if depth >= MAX_NESTING {
                return Err(Error::LimitExceeded {
                    what: "parenthesis nesting depth".into(),
                    found: depth + 1,
                    limit: MAX_NESTING,
                });
            }
            self.advance()?;
            let inner = self.or_expression(schema, depth + 1)?;
            self.expect_punct(")", "')', AND or OR")?;
            return Ok(inner);
        }
        if self.eat_keyword("true")? {
            return Ok(vec![Vec::new()]);
        }
        let position = self.position;
        if self.is_keyword("not") {
            self.advance()?;
            let name = self.name("a bool field after NOT")?;
            let condition = bool_condition(schema, &name, false).map_err(|e| at(position, e))?;
            return Ok(vec![vec![(position, condition)]]);
        }
        if matches!(&self.token, Token::Word(w) if KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w))) {
            return Err(self.error("a condition: a field name, NOT, TRUE or '('"));
        }
        let name = self.name("a condition: a field name, NOT, TRUE or '('")?;
        let condition = self.condition_after(schema, name, position)?;
        check_condition(schema, &condition).map_err(|e| at(position, e))?;
        Ok(vec![vec![(position, condition)]])
    }

    /// The operator and values after a field name; a bool field alone is `field = true`.
    fn condition_after(&mut self, schema: &Schema, field: String, position: usize) -> Result<Condition> {
        let op = match &self.token {
            Token::Punct("=") => Op::EQ,
            Token::Punct("<>" | "!=") => Op::NE,
            Token::Punct("<") => Op::LT,
            Token::Punct("<=") => Op::LE,
            Token::Punct(">") => Op::GT,
            Token::Punct(">=") => Op::GE,
            Token::Word(w) if w.eq_ignore_ascii_case("between") => Op::BETWEEN,
            Token::Word(w) if w.eq_ignore_ascii_case("in") => Op::IN,
            Token::Word(_) | Token::Punct(")") | Token::End => {
                return bool_condition(schema, &field, true).map_err(|e| at(position, e));
            }
            _ => return Err(self.error("an operator (= <> < <= > >= BETWEEN IN)")),
        };
        self.advance()?;
        let mut condition = Condition::new();
        condition.field = field;
        condition.op = op.into();
        match op {
            Op::BETWEEN => {
                condition.values.push(self.value()?);
                self.expect_keyword("and", "AND between the two values of BETWEEN")?;
                condition.values.push(self.value()?);
            }
            Op::IN => {
                self.expect_punct("(", "'(' after IN")?;
                if !self.eat_punct(")")? {
                    loop {
                        if condition.values.len() >= limits::MAX_IN_VALUES {
                            return Err(Error::LimitExceeded {
                                what: "number of condition values".into(),
                                found: condition.values.len() + 1,
                                limit: limits::MAX_IN_VALUES,
                            });
                        }
                        condition.values.push(self.value()?);
                        if self.eat_punct(",")? {
                            continue;
                        }
                        self.expect_punct(")", "',' or ')' in the IN list")?;
                        break;
                    }
                }
            }
            _ => condition.values.push(self.value()?),
        }
        Ok(condition)
    }

    fn value(&mut self) -> Result<Value> {
        let kind = match &self.token {
            Token::Int(i) => ValueKind::IntValue(*i),
            Token::Str(s) => ValueKind::StringValue(s.clone()),
            Token::Bytes(b) => ValueKind::BytesValue(b.clone()),
            Token::Word(w) if w.eq_ignore_ascii_case("true") => ValueKind::BoolValue(true),
            Token::Word(w) if w.eq_ignore_ascii_case("false") => ValueKind::BoolValue(false),
            _ => return Err(self.error("a value: an integer, true, false, 'string' or x'hex bytes'")),
        };
        self.advance()?;
        let mut v = Value::new();
        v.kind = Some(kind);
        Ok(v)
    }

    /// After `salt`: `N buckets [of (f, ..)]`.
    fn salt(&mut self) -> Result<SaltSpec> {
        let mut salt = SaltSpec::new();
        let Token::Int(buckets) = self.token else {
            return Err(self.error("the number of salt buckets"));
        };
        salt.buckets = u32::try_from(buckets).map_err(|_| self.error("salt buckets within 1..256"))?;
        self.advance()?;
        self.expect_keyword("buckets", "'buckets' after the number of salt buckets")?;
        if self.eat_keyword("of")? {
            self.expect_punct("(", "'(' before the salt fields")?;
            loop {
                if salt.fields.len() >= limits::MAX_FIELDS {
                    return Err(Error::LimitExceeded {
                        what: "number of salt fields".into(),
                        found: salt.fields.len() + 1,
                        limit: limits::MAX_FIELDS,
                    });
                }
                salt.fields.push(self.name("a salt field name")?);
                if !self.eat_punct(",")? {
                    break;
                }
            }
            self.expect_punct(")", "',' or ')' after the salt fields")?;
        }
        Ok(salt)
    }

    /// After a field's name: `type[(width)] [DESC]`.
    fn field_type(&mut self, name: String) -> Result<FieldSpec> {
        let expected =
            "a field type: int32, int64, timestamp, reversedTimestamp, bool, fixedString(n), fixedBytes(n), \
                        md5(n) or javaHash";
        let Token::Word(word) = &self.token else {
            return Err(self.error(expected));
        };
        let Some((_, ty)) = TYPES.iter().find(|(n, _)| n.eq_ignore_ascii_case(word)) else {
            return Err(self.error(expected));
        };
        let mut field = FieldSpec::new();
        field.name = name;
        field.type_ = (*ty).into();
        self.advance()?;
        if self.eat_punct("(")? {
            let Token::Int(width) = self.token else {
                return Err(self.error("the field's width"));
            };
            field.width = u32::try_from(width).map_err(|_| self.error("a width within 1..1024"))?;
            self.advance()?;
            self.expect_punct(")", "')' after the width")?;
        }
        field.descending = self.eat_keyword("desc")?;
        Ok(field)
    }
}

fn or_branches_exceeded(found: usize) -> Error {
    Error::LimitExceeded {
        what: "number of OR branches".into(),
        found,
        limit: limits::MAX_OR_BRANCHES,
    }
}

/// Every branch of `left` AND-ed with every branch of `right`, refused once it would exceed the
/// OR-branch, condition or value limits (so a short text cannot expand into gigabytes). A single
/// right branch is appended in place: a long AND stays linear.
fn and_product(mut left: Branches, right: Branches) -> Result<Branches> {
    let count = left.len().saturating_mul(right.len());
    if count > limits::MAX_OR_BRANCHES {
        return Err(or_branches_exceeded(count));
    }
    let values = |b: &[Positioned]| b.iter().map(|(_, c)| c.values.len()).sum::<usize>();
    let total: usize = left.iter().map(|l| values(l) * right.len()).sum::<usize>()
        + right.iter().map(|r| values(r) * left.len()).sum::<usize>();
    if total > limits::MAX_IN_VALUES {
        return Err(Error::LimitExceeded {
            what: "number of condition values".into(),
            found: total,
            limit: limits::MAX_IN_VALUES,
        });
    }
    let longest = left.iter().map(Vec::len).max().unwrap_or(0) + right.iter().map(Vec::len).max().unwrap_or(0);
    if longest > limits::MAX_CONDITIONS {
        return Err(Error::LimitExceeded {
            what: "number of conditions".into(),
            found: longest,
            limit: limits::MAX_CONDITIONS,
        });
    }
    if let [only] = right.as_slice() {
        for l in &mut left {
            l.extend(only.iter().cloned());
        }
        return Ok(left);
    }
    Ok(left
        .iter()
        .flat_map(|l| right.iter().map(move |r| l.iter().chain(r).cloned().collect()))
        .collect())
}

fn bool_condition(schema: &Schema, field: &str, value: bool) -> Result<Condition> {
    let index = schema.field_index(field)?;
    let f = &schema.fields()[index];
    if f.kind != crate::key::Kind::Bool {
        return Err(Error::condition(
            field,
            format!(
                "a {} field needs an operator and a value (only a bool field stands alone or after NOT)",
                f.kind.name()
            ),
        ));
    }
    let mut condition = Condition::new();
    condition.field = f.name.clone();
    condition.op = Op::EQ.into();
    let mut v = Value::new();
    v.kind = Some(ValueKind::BoolValue(value));
    condition.values.push(v);
    Ok(condition)
}

/// One condition checked alone against the schema, so its error can name where it is.
fn check_condition(schema: &Schema, condition: &Condition) -> Result<()> {
    Predicate::from_conditions(schema, std::slice::from_ref(condition)).map(|_| ())
}

fn at(position: usize, error: Error) -> Error {
    Error::AtPosition {
        position,
        source: Box::new(error),
    }
}

#[cfg(test)]
mod condition_text_tests {
    use super::*;

    fn condition(field: &str, op: Op, values: Vec<Value>) -> Condition {
        let mut c = Condition::new();
        c.field = field.into();
        c.op = op.into();
        c.values = values;
        c
    }

    fn value(kind: ValueKind) -> Value {
        let mut v = Value::new();
        v.kind = Some(kind);
        v
    }

    #[test]
    fn conditions_read_as_sql() {
        let conditions = vec![
            condition("code", Op::EQ, vec![value(ValueKind::IntValue(404))]),
            condition("status", Op::NE, vec![value(ValueKind::IntValue(-1))]),
            condition(
                "sdate",
                Op::BETWEEN,
                vec![value(ValueKind::IntValue(1)), value(ValueKind::IntValue(9))],
            ),
            condition(
                "site",
                Op::IN,
                vec![
                    value(ValueKind::StringValue("it's".into())),
                    value(ValueKind::BytesValue(vec![0x0a, 0xff])),
                ],
            ),
            condition("free", Op::EQ, vec![value(ValueKind::BoolValue(false))]),
            condition("type", Op::IN, vec![]),
        ];
        assert_eq!(
            describe_conditions(&conditions),
            "code = 404 AND status <> -1 AND sdate BETWEEN 1 AND 9 AND site IN ('it''s', x'0aff') AND free = false \
             AND type IN ()"
        );
        assert_eq!(describe_conditions(&[]), "TRUE");
    }
}
