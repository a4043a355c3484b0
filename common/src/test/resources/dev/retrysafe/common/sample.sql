-- version 3 of a sample schema
CREATE TABLE a (id BIGINT PRIMARY KEY);
  -- an indented comment
CREATE TABLE b (
    id BIGINT PRIMARY KEY
);
